// The `likes` executable: runs one command line and exits with its status.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(LikesCommandLine.run(Array(CommandLine.arguments.dropFirst()), environment: System.environment()))
