#!/usr/bin/env python3
"""Checks the gallery's HTML files as HTML: every element opened is closed in order (void elements
aside), attributes are quoted, and the shell's placeholders are the three the server fills.

    check_html.py FILE...
"""
import html.parser
import re
import sys

VOID = {"meta", "link", "input", "img", "br", "hr", "source", "area", "base", "col", "embed", "param", "track", "wbr"}


class Checker(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open = []
        self.problems = []

    def handle_starttag(self, tag, attributes):
        unquoted = re.sub(r'"[^"]*"|\'[^\']*\'', '""', self.get_starttag_text() or "")
        if re.search(r"=\s*[^\"'\s>]", unquoted):
            self.problems.append(f"line {self.getpos()[0]}: an unquoted attribute in <{tag}>")
        if tag not in VOID:
            self.open.append((tag, self.getpos()))

    def handle_endtag(self, tag):
        if not self.open or self.open[-1][0] != tag:
            self.problems.append(f"line {self.getpos()[0]}: </{tag}> closes {self.open[-1][0] if self.open else 'nothing'}")
            return
        self.open.pop()


failed = False
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    checker = Checker()
    checker.feed(text)
    checker.close()
    problems = checker.problems + [f"<{tag}> opened at line {line} is never closed" for tag, (line, _) in checker.open]
    placeholders = set(re.findall(r"\{\{(\w+)\}\}", text))
    if placeholders - {"title", "page", "main"}:
        problems.append(f"placeholders the server does not fill: {sorted(placeholders - {'title', 'page', 'main'})}")
    for problem in problems:
        print(f"{path}: {problem}")
        failed = True
sys.exit(1 if failed else 0)
