#!/usr/bin/env python3
"""The shape of the package, checked: what review found drifting when nothing checked it.

    structure.py [ROOT]

Each rule prints one line per place that breaks it (FILE:LINE: what, and what to do) and the
script exits 1 when any did, 0 otherwise:

- No force unwrap (`x!`, `try!`, `as!`) in Sources/ without a reason on its line, given as a
  comment `// unwrap: WHY`.
- No function (func, init, subscript, a computed property) in Sources/ longer than 60 lines without a reason in the
  comments just above it or on its own line, given as `// long: WHY`.
- Every import of a module in a target is declared: a module of the package only where
  Package.swift lists it among the target's dependencies (so LikeStore is imported only by the
  targets that say so), and otherwise only the system's modules the package may use.

- Each library target of Swift code in Sources/ has a test target of its own, named after it
  with `Tests` and depending on it, that tests it (the end-to-end tests of the binary are
  likesTests').
- No synchronous test runs on the cooperative pool: its suite, or the test, has TestSupport's
  trait `.ownLane` (two synchronous tests that run for minutes hold both of the pool's threads
  on two cores, and every async test waits that long).
- No test imports a module `@testable`: a test reaches a target through the declarations the
  package's other targets use (`public` and `package`; the fault injector's seam among them), so
  what a test relies on is part of the target's stated interface, not its privates.
- No test's verdict waits on the clock: in Tests/, no sleep is followed by an assertion (a sleep
  and then a check that nothing happened passes under load whether or not it works). A test of
  "it happens" waits on the event itself; a test of "nothing happens" makes something else happen
  after it and checks what came first. A sleep inside a `while` that polls for the event, and a
  sleep that only moves the clock on before the next change, are not such sleeps.

The package is read with `swift package dump-package`, so Package.swift is the one truth.
"""

import json
import os
import re
import subprocess
import sys

LONGEST = 60
# The modules every target may import: the standard library's, the C library and the toolchain's
# (the design card: no packages), and the test frameworks in tests.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Synchronization", "Observation", "Glibc", "Darwin",
    "Musl", "SwiftUI", "os",
}
TESTS = {"Testing", "XCTest"}


def blank_strings_and_comments(text):
    """The source with every comment, string literal and character of one replaced by spaces
    (newlines kept), so that a `!` or a brace inside them is never taken for code. Comments are
    returned apart, by line, for the reasons they give."""
    out = []
    comments = {}
    i = 0
    line = 1
    n = len(text)

    def keep(ch):
        out.append("\n" if ch == "\n" else " ")

    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            comments.setdefault(line, []).append(text[i:end])
            for c in text[i:end]:
                keep(c)
            i = end
            continue
        if text.startswith("/*", i):
            depth = 0
            j = i
            while j < n:
                if text.startswith("/*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            for c in text[i:j]:
                keep(c)
                if c == "\n":
                    line += 1
            i = j
            continue
        raw = re.match(r'(#+)("""|")', text[i:])
        if ch == '"' or raw:
            hashes = raw.group(1) if raw else ""
            quote = raw.group(2) if raw else ('"""' if text.startswith('"""', i) else '"')
            start = i
            j = i + len(hashes) + len(quote)
            closing = quote + hashes
            depth = 0
            while j < n:
                if not hashes and text[j] == "\\":
                    if text.startswith("\\(", j):
                        depth += 1
                        j += 2
                        continue
                    j += 2
                    continue
                if depth > 0:
                    if text[j] == "(":
                        depth += 1
                    elif text[j] == ")":
                        depth -= 1
                    j += 1
                    continue
                if text.startswith(closing, j):
                    j += len(closing)
                    break
                if quote == '"' and text[j] == "\n":
                    break
                j += 1
            for c in text[start:j]:
                keep(c)
                if c == "\n":
                    line += 1
            i = j
            continue
        out.append(ch)
        if ch == "\n":
            line += 1
        i += 1
    return "".join(out), comments


FORCE = re.compile(r"(?:\btry!|\bas!|[\w\)\]\}>]!(?![=]))")
FUNCTION = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|static|class|final|override|"
                      r"mutating|nonmutating|convenience|required|nonisolated|dynamic|@inlinable|@usableFromInline)\s+)*"
                      r"(func\s+[^\s(<]+|init[?!]?|subscript|deinit|var\s+\w+(?=\s*:[^=]*\{\s*$))")


def has_reason(comments, line, word):
    return any(f"{word}:" in comment for comment in comments.get(line, []))


def check_file(path, relative, problems):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    code, comments = blank_strings_and_comments(text)
    lines = code.split("\n")
    for number, content in enumerate(lines, start=1):
        if FORCE.search(content) and not has_reason(comments, number, "unwrap"):
            problems.append(f"{relative}:{number}: a force unwrap without a reason; unwrap safely, or say why it cannot fail "
                            f"in a comment `// unwrap: WHY` on the line")
    # Functions: from the line of their name to the line of the brace that closes their body.
    for number, content in enumerate(lines, start=1):
        match = FUNCTION.match(content)
        if not match:
            continue
        # The body's opening brace: the first `{` from here (a protocol's requirement has none
        # before the next declaration).
        index = sum(len(l) + 1 for l in lines[:number - 1]) + match.end()
        opening = code.find("{", index)
        if opening < 0:
            continue
        between = code[index:opening]
        if re.search(r"\n\s*(?:@\w+\s+)*(?:\w+\s+)*(func|var|let|case|init|subscript|struct|class|enum|protocol|extension)\b", between):
            continue
        depth = 0
        end = opening
        while end < len(code):
            if code[end] == "{":
                depth += 1
            elif code[end] == "}":
                depth -= 1
                if depth == 0:
                    break
            end += 1
        last = code.count("\n", 0, end) + 1
        length = last - number + 1
        # The reason may sit in the comments just above (before or after a doc comment).
        above = number - 1
        reasoned = has_reason(comments, number, "long")
        while not reasoned and above > 0 and above in comments and not lines[above - 1].strip():
            reasoned = has_reason(comments, above, "long")
            above -= 1
        if length > LONGEST and not reasoned:
            name = match.group(1).replace("func ", "").replace("var ", "")
            problems.append(f"{relative}:{number}: {name} is {length} lines, over {LONGEST}; split it, or say why it is one "
                            f"piece in a comment `// long: WHY` just above it")


def swift_code(root, folder):
    """Each Swift file under folder, by its path from root, with its strings and comments blanked."""
    for directory, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    code, _ = blank_strings_and_comments(handle.read())
                yield os.path.relpath(path, root), code


def check_imports(root, package, problems):
    modules = {target["name"] for target in package["targets"]}
    # Test targets may import what their dependencies are, and the test frameworks.
    for target in package["targets"]:
        declared = set()
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        helper = target["type"] == "test" or (target.get("path") or "").startswith("Tests")  # TestSupport
        allowed = SYSTEM | declared | {target["name"]} | (TESTS if helper else set())
        default = "Tests" if target["type"] == "test" else "Sources"
        folder = os.path.join(root, target.get("path") or os.path.join(default, target["name"]))
        for relative, code in swift_code(root, folder):
            for number, content in enumerate(code.split("\n"), start=1):
                match = re.match(r"^\s*(?:@testable\s+|@_\w+\s+)?import\s+(?:(?:struct|class|enum|func|var)\s+)?(\w+)", content)
                if not match:
                    continue
                module = match.group(1)
                if content.lstrip().startswith("@testable"):
                    problems.append(f"{relative}:{number}: a @testable import of {module}; a test reaches the code it "
                                    f"tests as the package's other targets do, through its public and package "
                                    f"declarations: make what the test needs `package`, or test it through them")
                if module in allowed:
                    continue
                if module in modules:
                    problems.append(f"{relative}:{number}: imports {module}, which Package.swift does not list among "
                                    f"{target['name']}'s dependencies; add it there, or leave it out")
                else:
                    problems.append(f"{relative}:{number}: imports {module}, neither a module of the package nor one "
                                    f"of the system's it may use ({', '.join(sorted(SYSTEM))})")


def check_test_targets(root, package, problems):
    targets = package["targets"]
    tests = {target["name"]: target for target in targets if target["type"] == "test"}
    for target in targets:
        if target["type"] != "regular" or (target.get("path") or "").startswith("Tests"):
            continue
        folder = os.path.join(root, target.get("path") or os.path.join("Sources", target["name"]))
        swift = any(name.endswith(".swift") for _, _, names in os.walk(folder) for name in names)
        if not swift:
            continue  # C code: tested through the Swift target that calls it
        test = tests.get(target["name"] + "Tests")
        depends = test and any(
            target["name"] in (dependency.get("byName") or dependency.get("target") or [None])[:1] for dependency in test.get("dependencies", []))
        if not depends:
            problems.append(f"Package.swift:1: the library target {target['name']} has no test target {target['name']}Tests "
                            f"that depends on it; add one under Tests/{target['name']}Tests that tests it through its interface")


SLEEP = re.compile(r"\b(?:Task\.sleep|Thread\.sleep|usleep|sleep)\s*\(")
ASSERTION = re.compile(r"^\s*(?:#expect|#require|try\s+#require|XCTAssert)")


def check_sleeps(root, problems):
    for relative, code in swift_code(root, os.path.join(root, "Tests")):
        lines = code.split("\n")
        for number, content in enumerate(lines, start=1):
            if not SLEEP.search(content) or re.match(r"^\s*(?:while|for)\b", content):
                continue
            before = next((line for line in reversed(lines[:number - 1]) if line.strip()), "")
            if re.match(r"^\s*while\b.*\{\s*$", before):
                continue  # the body of a loop that polls for the event
            following = next((line for line in lines[number:] if line.strip() and line.strip() != "}"), "")
            if ASSERTION.match(following):
                problems.append(f"{relative}:{number}: a sleep followed by an assertion; wait on the event itself, or make "
                                f"something else happen after it and check the order")


TEST = re.compile(r"@Test\b(\((?:[^()]|\([^()]*(?:\([^()]*\)[^()]*)*\))*\))?\s+(?:@\w+\s+)*func\s+(\w+)\s*"
                  r"\((?:[^()]|\([^()]*\))*\)\s*([^{]*)\{")
TYPE = re.compile(r"(@MainActor\s+)?(?:@Suite(\([^)]*\))?\s+)?(?:final\s+)?(struct|class|extension)\s+(\w+)[^{]*\{")


def check_lanes(root, problems):
    """A synchronous test holds a thread of the cooperative pool for as long as it runs (two
    threads on two cores), so it runs on TestSupport's lane: its suite or itself says
    `.ownLane`. A main-actor suite's tests run on the main thread and need not."""
    lane = set()  # types whose @Suite says .ownLane, or that are main-actor
    found = []
    for relative, code in swift_code(root, os.path.join(root, "Tests")):
        if relative.startswith(os.path.join("Tests", "Support")) or relative.startswith(os.path.join("Tests", "Tools")):
            continue
        types = []
        for match in TYPE.finditer(code):
            depth, end = 0, match.end() - 1
            while end < len(code):
                depth += {"{": 1, "}": -1}.get(code[end], 0)
                if depth == 0:
                    break
                end += 1
            types.append((match.start(), end, match.group(4)))
            if match.group(3) != "extension" and (match.group(1) or ".ownLane" in (match.group(2) or "")):
                lane.add(match.group(4))
        for match in TEST.finditer(code):
            if "async" in match.group(3) or ".ownLane" in (match.group(1) or ""):
                continue
            enclosing = [t for t in types if t[0] < match.start() < t[1]]
            name = min(enclosing, key=lambda t: t[1] - t[0])[2] if enclosing else None
            found.append((relative, code.count("\n", 0, match.start()) + 1, match.group(2), name))
    for relative, number, function, name in found:
        if name not in lane:
            problems.append(f"{relative}:{number}: the synchronous test {function} would hold a thread of the "
                            f"cooperative pool; give its suite, or it, the trait .ownLane (TestSupport)")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    dumped = subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True)
    if dumped.returncode != 0:
        print(f"structure: Package.swift cannot be read: {dumped.stderr.strip()}", file=sys.stderr)
        return 2
    package = json.loads(dumped.stdout)
    problems = []
    sources = os.path.join(root, "Sources")
    for directory, _, names in os.walk(sources):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                check_file(path, os.path.relpath(path, root), problems)
    check_imports(root, package, problems)
    check_test_targets(root, package, problems)
    check_sleeps(root, problems)
    check_lanes(root, problems)
    for problem in sorted(problems):
        print(problem)
    if problems:
        print(f"structure: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("structure: force unwraps, function lengths, imports, test targets, sleeps, @testable imports and lanes as the rules say")
    return 0


if __name__ == "__main__":
    sys.exit(main())
