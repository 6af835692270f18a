#!/usr/bin/env python3
"""Check docs/VALIDATION.md against issue 18's acceptance: in the sections on documents 000/004,
001 and 002, every table that compares with the document (a header cell starting with "document")
has a "command" and a "verdict" column, and every row has a command and exactly one of the four
verdicts:
  "reproduced", "reproduced after calibrating X",
  "not reproduced: the document is inconsistent because ...", "not reproduced: unexplained".
A verdict may be followed by an explanation in brackets ("reproduced (as a pattern ...)").
Tables without a "document..." header cell (sensitivity scans, investigations) are not checked,
except that any table with a "verdict" column is. Rows must have as many cells as the header
(a bare | inside a cell splits it: write \\| or rephrase).

Usage: validation_rows.py [path/to/VALIDATION.md] [--summary]
Exit 0 when every checked row passes, 1 otherwise (each failure printed as file:line: reason).
Standard library only; runs in well under a second.
"""
import re
import sys

VERDICTS = [
    re.compile(r"^reproduced after calibrating \S"),
    re.compile(r"^not reproduced: the document is inconsistent because \S"),
    re.compile(r"^not reproduced: unexplained($|[ .;(])"),
    re.compile(r"^reproduced($|[ .;(])"),
]
VERDICT_NAMES = ["reproduced after calibrating", "not reproduced: inconsistent",
                 "not reproduced: unexplained", "reproduced"]
DOCUMENT_SECTION = re.compile(r"^## Document (000|001|002|004)\b")


def split_row(line):
    """Cells of a markdown table row; '\\|' and pipes inside `code` do not split."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells, cur, in_code, i = [], [], False, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            cur.append("|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur).strip())
    return cells


def check(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    failures, counts, in_doc, i = [], [0] * len(VERDICTS), False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            in_doc = bool(DOCUMENT_SECTION.match(line))
        if not (line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|\s*$", lines[i + 1])):
            i += 1
            continue
        header = [c.lower() for c in split_row(line)]
        start = i
        i += 2
        rows = []
        while i < len(lines) and lines[i].startswith("|"):
            rows.append((i, split_row(lines[i])))
            i += 1
        has_document = any(c.startswith("document") for c in header)
        verdict_col = next((k for k, c in enumerate(header) if c.startswith("verdict")), None)
        if not ((in_doc and has_document) or verdict_col is not None):
            continue
        command_col = next((k for k, c in enumerate(header) if "command" in c), None)
        where = f"{path}:{start + 1}"
        if verdict_col is None:
            failures.append(f"{where}: table compares with the document but has no 'verdict' column")
            continue
        if command_col is None:
            failures.append(f"{where}: table has no 'command' column")
        for n, cells in rows:
            at = f"{path}:{n + 1}"
            if len(cells) != len(header):
                failures.append(f"{at}: {len(cells)} cells, header has {len(header)} (unescaped | in a cell?)")
                continue
            verdict = cells[verdict_col]
            hit = next((k for k, rx in enumerate(VERDICTS) if rx.match(verdict)), None)
            if hit is None:
                failures.append(f"{at}: verdict '{verdict[:60]}' is none of the four")
            else:
                counts[hit] += 1
            if command_col is not None and not cells[command_col]:
                failures.append(f"{at}: empty command")
    return failures, counts


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    path = args[0] if args else "docs/VALIDATION.md"
    failures, counts = check(path)
    for f in failures:
        print(f)
    if "--summary" in argv or not failures:
        print(", ".join(f"{name}: {c}" for name, c in zip(VERDICT_NAMES, counts)) +
              f"; {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
