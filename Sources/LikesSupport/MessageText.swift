// How messages show what a user gave or the system said: quoted text that no control character
// can smuggle a terminal escape through, and errno as words.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Pieces of the sentences errors are made of.
package enum MessageText {
    /// `text` in double quotes for a message, control characters, quotes and backslashes escaped
    /// (so that a hostile id cannot rewrite the terminal) and cut to 80 characters.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\"" || scalar == "\\" {
                result += scalar.escaped(asASCII: false)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        let limit = 80
        if result.count > limit { result = String(result.prefix(limit)) + "…" }
        return result + "\""
    }

    /// What the system calls the error `code` (an `errno`), as `strerror` words it.
    package static func systemError(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
