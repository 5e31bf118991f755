#!/usr/bin/env python3
"""Compares SafeHTML with nh3 (Python bindings of Rust's ammonia) configured with the same policy
over the HTML vectors of the corpus. Prints how many outputs differ in each way, with an example of
each, and fails if SafeHTML's output breaks the policy wherever the two differ.

Run from the package root: python3 Tests/safehtml/compare_nh3.py --tool .build/debug/safehtml-tool
"""
import collections
import html
import re
import sys

import html5lib
import nh3

from safehtml_corpus import (ALLOWED_ELEMENTS, ALLOWED_SCHEMES, LINK_REL, XHTML, arguments, load_corpus,
                             policy_violations, sanitize_corpus, url_scheme)

# The same policy as SafeHTML, in nh3's terms (docs/safe-html.md).
DROPPED_WITH_CONTENT = {"script", "style", "template", "noscript", "iframe", "frame", "frameset", "object",
                        "embed", "applet", "svg", "math", "textarea", "xmp", "noembed", "noframes", "plaintext",
                        "title", "head", "meta", "link", "base", "form", "input", "button", "select", "option"}
NH3 = nh3.Cleaner(tags=ALLOWED_ELEMENTS, clean_content_tags=DROPPED_WITH_CONTENT,
                  attributes={"a": {"href", "title"}}, url_schemes=ALLOWED_SCHEMES, link_rel=LINK_REL,
                  strip_comments=True)

# Ways two outputs can differ, from the most superficial to the most substantial; each is
# explained in docs/safe-html.md.
SAME = "identical"
SERIALIZATION = "same tree, different escaping or quoting"
WHITESPACE = "whitespace between blocks"
PARAGRAPHS = "SafeHTML wraps loose text in <p>"
LINKS = "links SafeHTML refuses or rewrites (relative, missing or spaced href)"
STRUCTURE = "same text, different nesting (libxml2 and HTML5 build trees differently)"
SAFEHTML_REMOVES_MORE = "SafeHTML keeps less text"
NH3_REMOVES_MORE = "nh3 keeps less text"


def canonical(fragment_html, collapse_whitespace=False, unwrap_paragraphs=False, normalize_links=False):
    """One string per tree, the same for any two serializations an HTML5 parser reads alike."""
    root = html5lib.parseFragment(fragment_html, treebuilder="etree", namespaceHTMLElements=True)
    parts = []

    def text(value):
        if value:
            parts.append(html.escape(re.sub(r"\s+", " ", value) if collapse_whitespace else value))

    def visit(node):
        name = node.tag[len(XHTML):] if isinstance(node.tag, str) and node.tag.startswith(XHTML) else str(node.tag)
        attributes = dict(node.attrib)
        unwrap = unwrap_paragraphs and name == "p"
        if normalize_links and name == "a":
            href = re.sub(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028-\u202f\ufeff]", "", attributes.get("href", ""))
            unwrap = url_scheme(href) not in ALLOWED_SCHEMES or (href.split(":")[0].lower() in ("http", "https") and not href[href.index(":"):].startswith("://"))
            attributes["href"] = href
        if not unwrap:
            parts.append(f"<{name}{''.join(f' {k}={v!r}' for k, v in sorted(attributes.items()))}>")
        text(node.text)
        for child in node:
            visit(child)
            text(child.tail)
        if not unwrap:
            parts.append(f"</{name}>")

    text(root.text)
    for child in root:
        visit(child)
        text(child.tail)
    result = "".join(parts)
    return re.sub(r"\s+", " ", result).strip() if collapse_whitespace else result


def words(fragment_html):
    root = html5lib.parseFragment(fragment_html, treebuilder="etree")
    return " ".join("".join(root.itertext()).split())


def difference(safehtml, other):
    if safehtml == other:
        return SAME
    steps = [
        (SERIALIZATION, {}),
        (WHITESPACE, {"collapse_whitespace": True}),
        (PARAGRAPHS, {"collapse_whitespace": True, "unwrap_paragraphs": True}),
        (LINKS, {"collapse_whitespace": True, "unwrap_paragraphs": True, "normalize_links": True}),
    ]
    for name, options in steps:
        if canonical(safehtml, **options) == canonical(other, **options):
            return name
    ours, theirs = words(safehtml), words(other)
    if ours == theirs:
        return STRUCTURE
    return SAFEHTML_REMOVES_MORE if len(ours) < len(theirs) else NH3_REMOVES_MORE


def main():
    options = arguments(__doc__).parse_args()
    corpus = [vector for vector in load_corpus() if vector["mode"] == "html"]
    outputs = sanitize_corpus(options.tool, corpus)

    counts = collections.Counter()
    examples = {}
    unsafe = []
    for vector, ours in zip(corpus, outputs):
        theirs = NH3.clean(vector["input"])
        kind = difference(ours, theirs)
        counts[kind] += 1
        examples.setdefault(kind, (vector, ours, theirs))
        if kind != SAME and policy_violations(ours):
            unsafe.append((vector, ours, policy_violations(ours)))

    print(f"compare_nh3: {len(corpus)} HTML vectors")
    for kind, count in counts.most_common():
        vector, ours, theirs = examples[kind]
        print(f"  {count:4d}  {kind}")
        if kind != SAME:
            print(f"        e.g. #{vector['id']} {vector['input']!r}\n"
                  f"             SafeHTML {ours!r}\n             nh3      {theirs!r}")
    for vector, ours, problems in unsafe:
        print(f"UNSAFE where outputs differ: vector {vector['id']}: {problems}\n  output: {ours!r}")
    if unsafe:
        sys.exit(f"compare_nh3: {len(unsafe)} SafeHTML outputs break the policy")
    print("compare_nh3: wherever the outputs differ, SafeHTML's passes the same policy check")


if __name__ == "__main__":
    main()
