// What the package's targets take from Foundation on Apple platforms, written here for Linux,
// where they use FoundationEssentials alone: a fully static `likes` without ICU and
// FoundationInternationalization is a third of the size and starts cold in less time.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif
#if canImport(Glibc)
    import Glibc
    import LinuxFileSystemCalls
#endif

extension String {
    /// The text in Unicode's canonical composition (NFC).
    package var canonicallyComposed: String {
        #if canImport(Darwin)
            precomposedStringWithCanonicalMapping
        #else
            String(decoding: _nfcCodeUnits, as: UTF8.self)
        #endif
    }

    /// The text without the spaces and tabs at either end (Unicode's space separators and tab);
    /// with `newlines`, also without line and paragraph breaks.
    package func trimmingSpace(newlines: Bool = false) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
                || (newlines
                    && (scalar.properties.generalCategory == .lineSeparator
                        || scalar.properties.generalCategory == .paragraphSeparator || ("\n"..."\r").contains(scalar)
                        || scalar == "\u{85}"))
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }
}

/// Paths as text, as `NSString`'s path methods treat them.
package enum PathText {
    /// `path` without its trailing slashes (`/` stays `/`).
    private static func trimmed(_ path: String) -> Substring {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The path of the folder holding `path`: `/a/b` → `/a`, `/a` → `/`, `a` → ``.
    package static func parent(_ path: String) -> String {
        let text = trimmed(path)
        guard text != "/" else { return "/" }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        let parent = text[..<slash]
        return parent.isEmpty ? "/" : String(trimmed(String(parent)))
    }

    /// The last component: `/a/b.jpg` → `b.jpg`, `/` → `/`.
    package static func lastComponent(_ path: String) -> String {
        let text = trimmed(path)
        guard text != "/", let slash = text.lastIndex(of: "/") else { return String(text) }
        return String(text[text.index(after: slash)...])
    }

    /// The extension of the last component, without its dot: `a/b.JPG` → `JPG`; `` when none.
    package static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// `path` without the extension of its last component: `a/b.jpg` → `a/b`.
    package static func deletingExtension(_ path: String) -> String {
        let text = String(trimmed(path))
        let ext = pathExtension(text)
        return ext.isEmpty ? text : String(text.dropLast(ext.count + 1))
    }

    /// `component` appended with one slash between.
    package static func appending(_ component: String, to path: String) -> String {
        guard !path.isEmpty else { return component }
        return path.hasSuffix("/") ? path + component : path + "/" + component
    }
}

/// `value` in decimal with exactly `places` digits after the point, rounded half away from zero.
package func decimalText(_ value: Double, places: Int) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((abs(value) * Double(scale)).rounded())
    var fraction = String(scaled % scale)
    while fraction.count < places { fraction = "0" + fraction }
    return (value < 0 && scaled != 0 ? "-" : "") + String(scaled / scale) + (places > 0 ? "." + fraction : "")
}

/// Runs `body` on a thread of its own, named `name` where the system allows.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    #if canImport(Glibc)
        final class Start {
            let body: @Sendable () -> Void
            let name: String
            init(_ body: @escaping @Sendable () -> Void, _ name: String) {
                self.body = body
                self.name = name
            }
        }
        let start = Unmanaged.passRetained(Start(body, name)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }  // always the Start passed below
                let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                _ = likes_name_thread(start.name)
                start.body()
                return nil
            }, start)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            fatalError("pthread_create failed (\(status))")
        }
        pthread_detach(thread)
    #else
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    #endif
}
