#!/usr/bin/env python3
"""Checks every relative link of the project's Markdown pages: the file exists and, for `#anchor`, the page has a
heading with that anchor (GitHub's rule: lower case, punctuation but `-` and `_` dropped, spaces to `-`).

    python3 scripts/readme/check-links.py [FILE ...]

Default: README.md, every *.md under docs/ and scenarios/README.md. Links inside fenced or inline code are not
links; http(s) and mailto links are not checked. Prints each broken link as `file:line: link: why`; exits 1 if any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def anchor(title: str) -> str:
    """GitHub's anchor of a heading: markup stripped, lower case, what is not a letter, digit, `-`, `_` or space
    dropped, spaces to `-`."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link in a heading keeps its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced code, numbered from 1."""
    lines, inside, fence = [], False, ""
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        opening = FENCE.match(line)
        if opening and (not inside or line.strip().startswith(fence)):
            if inside:
                inside = False
            else:
                inside, fence = True, opening.group(1)
            continue
        if not inside:
            lines.append((number, line))
    return lines


def anchors(path: Path) -> set[str]:
    found: dict[str, int] = {}
    result = set()
    for _, line in prose_lines(path):
        heading = HEADING.match(line)
        if heading:
            base = anchor(heading.group("title"))
            count = found.get(base, 0)
            result.add(base if count == 0 else f"{base}-{count}")
            found[base] = count + 1
    return result


def check(path: Path) -> list[str]:
    problems = []
    label = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    for number, line in prose_lines(path):
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            target = match.group("target")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            destination = (path.parent / file_part).resolve() if file_part else path
            if not destination.exists():
                problems.append(f"{label}:{number}: {target}: no such file")
                continue
            if fragment and destination.suffix == ".md" and fragment not in anchors(destination):
                problems.append(f"{label}:{number}: {target}: no heading with the anchor #{fragment}")
    return problems


def main() -> int:
    pages = [Path(arg).resolve() for arg in sys.argv[1:]] or (
        [REPO / "README.md", REPO / "scenarios" / "README.md"] + sorted((REPO / "docs").rglob("*.md")))
    problems = [problem for page in pages for problem in check(page)]
    for problem in problems:
        print(problem)
    print(f"{len(pages)} pages, {len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
