// The `likes` executable: runs one command line and exits with its status.

import Foundation

exit(LikesCommandLine.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
