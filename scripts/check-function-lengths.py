#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lists the Swift functions (func, init, subscript, deinit, computed properties) longer than a limit, from the
declaration's line to its closing brace, so that each reads on one screen (issue 21: no function over about 60 lines).
The braces of strings, multi-line string literals and line comments are not counted.

Usage:  scripts/check-function-lengths.py [--limit N] [DIRECTORY...]     (default: 60 lines, Sources/)
Prints "LINES FILE:LINE NAME" per function over the limit, longest first; exits 1 when there is one.
"""
import pathlib
import re
import sys

DECLARATION = re.compile(
    r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*'
    r'(?:(?:package|public|private|fileprivate|internal|static|class|override|mutating|nonisolated|final|convenience|'
    r'required|indirect|lazy)\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?|subscript|deinit|(?:var|let)\s+\w+\s*:[^=]*\{\s*$)')


def code_lines(text):
    """The file's lines with string literals (one-line and multi-line) and line comments blanked out."""
    lines, inside = [], False
    for line in text.split('\n'):
        quotes = line.count('"""')
        if inside or quotes:
            line = '' if inside or quotes % 2 == 0 else line.split('"""')[0]
        if quotes % 2:
            inside = not inside
        line = re.sub(r'#"(?:[^"]|"(?!#))*"#', '""', line)
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        comment = line.find('//')
        lines.append(line if comment < 0 else line[:comment])
    return lines


def body_length(lines, start):
    """Lines from `start` to the brace that closes its body; None for a declaration without a body."""
    depth, opened = 0, False
    for index in range(start, min(len(lines), start + 10_000)):
        if not opened and index > start and (DECLARATION.match(lines[index]) or index > start + 8):
            return None  # a protocol requirement, or a declaration whose body is not a brace block
        for character in lines[index]:
            if character == '{':
                depth, opened = depth + 1, True
            elif character == '}':
                depth -= 1
        if opened and depth <= 0:
            return index - start + 1
    return None


def long_functions(directories, limit):
    found = []
    for directory in directories:
        for path in sorted(pathlib.Path(directory).rglob('*.swift')):
            lines = code_lines(path.read_text(encoding='utf-8'))
            for index, line in enumerate(lines):
                declaration = DECLARATION.match(line)
                if not declaration:
                    continue
                length = body_length(lines, index)
                if length and length > limit:
                    found.append((length, f'{path}:{index + 1}', declaration.group(1).split('{')[0].strip()))
    return sorted(found, reverse=True)


def main(arguments):
    limit = 60
    if arguments[:1] == ['--limit']:
        limit, arguments = int(arguments[1]), arguments[2:]
    found = long_functions(arguments or ['Sources'], limit)
    for length, where, name in found:
        print(f'{length:4d} {where} {name}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
