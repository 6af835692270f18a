#!/usr/bin/env python3
"""List the C++ functions longer than a limit (default 120 lines) under the given directories.

    scripts/function_sizes.py                 # src/ and apps/, limit 120: exit 1 if a function
                                              # not in ALLOWED is longer
    scripts/function_sizes.py --limit 80 src  # any limit and directories

A function's length counts the lines from the line of its name to its closing brace (clang-tidy's
readability-function-size LineThreshold counts one line fewer: the body only). The scan is a brace
counter, not a parser: comments, string and character literals (raw strings too) are blanked
first; a '{' that follows ')' (optionally const, override, noexcept, a trailing return type or a
constructor's initialisers) at namespace or class scope opens a function body. Lambdas and blocks
inside a function count towards that function.
"""
import argparse
import pathlib
import re
import sys

# Functions allowed above the limit, with the reason (docs/ARCHITECTURE.md lists them too).
ALLOWED = {
    ("src/cdpr/exact.cpp", "solve_exact"):
        "hot tension kernel on preallocated workspace views; split only with bench_tension before/after",
    ("src/cdpr/dense_kernels.cpp", "BoundedLS::solve"):
        "hot BVLS active-set kernel on preallocated workspace views; split only with bench_tension before/after",
    ("src/cdpr/nnls.cpp", "lawson_hanson_fixed"):
        "hot NNLS kernel (fixed-size, unrolled) on preallocated views; split only with bench_tension before/after",
}


def blank_comments_and_literals(src):
    """The text with comments and string/char literals replaced by spaces (line breaks kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
            continue
        m = re.match(r'R"([^(\s]*)\(', src[i:i + 40])
        if m and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            end = ")" + m.group(1) + '"'
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
            continue
        if c == '"' or (c == "'" and not (i > 0 and src[i - 1].isalnum())):  # 1'000 is a digit separator
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


FUNCTION_HEAD = re.compile(r"\)\s*(const|override|final|noexcept|mutable|->[^{]*|:[^{]*|\s)*$")
CONTROL = re.compile(r".*\b(if|for|while|switch|catch)\s*\(")
NAME = re.compile(r"([~\w:<>]+|operator\s*\S+)\s*\((?:[^()]|\([^()]*\))*\)[^()]*$")


def functions(path):
    """(lines, first line, name) of every function definition at namespace or class scope."""
    s = blank_comments_and_literals(pathlib.Path(path).read_text())
    found, stack, last = [], [], 0
    for i, c in enumerate(s):
        if c == "{":
            head = " ".join(s[last:i].split())
            outer = all(kind in ("namespace", "class") for kind, _, _ in stack)
            kind, line, name = "block", s.count("\n", 0, i) + 1, ""
            if re.search(r"\bnamespace\b", head) and "(" not in head:
                kind = "namespace"
            elif re.search(r"\b(class|struct|union|enum)\b[^()]*$", head):
                kind = "class"
            elif outer and FUNCTION_HEAD.search(head) and not CONTROL.match(head.split(";")[-1]):
                kind = "function"
                m = NAME.search(head)
                name = m.group(1) if m else head[-60:]
                k = s.rfind(name.split("::")[-1], last, i)
                if k >= 0:
                    line = s.count("\n", 0, k) + 1
            stack.append((kind, line, name))
            last = i + 1
        elif c == "}":
            if stack:
                kind, line, name = stack.pop()
                if kind == "function":
                    found.append((s.count("\n", 0, i) + 1 - line + 1, line, name))
            last = i + 1
        elif c == ";":
            last = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", default=["src", "apps"], help="directories to scan (default: src apps)")
    ap.add_argument("--limit", type=int, default=120, help="longest function allowed [lines] (default 120)")
    args = ap.parse_args()
    rows = []
    for d in args.dirs:
        for p in sorted(pathlib.Path(d).rglob("*")):
            if p.suffix in (".cpp", ".hpp", ".h", ".cc"):
                rows += [(n, str(p), line, name) for n, line, name in functions(p) if n > args.limit]
    over = 0
    for n, p, line, name in sorted(rows, reverse=True):
        why = ALLOWED.get((p, name))
        print(f"{n:5d} {p}:{line} {name}" + (f"  (allowed: {why})" if why else ""))
        over += why is None
    if over:
        print(f"{over} function(s) longer than {args.limit} lines (split them into named steps, or list them in ALLOWED "
              f"with the reason)", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
