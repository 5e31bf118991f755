#!/usr/bin/env python3
"""Re-parses every sanitized corpus output with html5lib and fails unless it holds only allowed
elements, attributes and URL schemes, with the rel on every link.

Run from the package root: python3 Tests/safehtml/check_outputs.py --tool .build/debug/safehtml-tool
"""
import sys

from safehtml_corpus import arguments, load_corpus, policy_violations, sanitize_corpus

# Unsanitized markup the check must reject, so a check that passes everything cannot go unnoticed.
KNOWN_BAD = [
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)" rel="nofollow noopener noreferrer">x</a>',
    '<a href=" JAVASCRIPT:alert(1)" rel="nofollow noopener noreferrer">x</a>',
    '<a href="https://example.org/">no rel</a>',
    '<p style="color:red">x</p>',
    "<svg><a>x</a></svg>",
    "<!-- comment -->",
]


def main():
    options = arguments(__doc__).parse_args()
    for bad in KNOWN_BAD:
        if not policy_violations(bad):
            sys.exit(f"check_outputs: the checker itself is broken, it accepted {bad!r}")

    corpus = load_corpus()
    outputs = sanitize_corpus(options.tool, corpus)
    failures = 0
    for vector, html in zip(corpus, outputs):
        for problem in policy_violations(html):
            failures += 1
            print(f"vector {vector['id']} ({vector['class']}): {problem}\n  input:  {vector['input']!r}\n  output: {html!r}")
    if failures:
        sys.exit(f"check_outputs: {failures} policy violations in {len(corpus)} outputs")
    print(f"check_outputs: {len(corpus)} outputs hold only allowed elements, attributes and links")


if __name__ == "__main__":
    main()
