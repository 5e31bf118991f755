"""What the SafeHTML checkers share: the corpus, the tool that sanitizes it, and the allowlist.

The allowlist here is written independently of the Swift code on purpose, so a mistake in one
is caught by the other.
"""
import argparse
import json
import pathlib
import subprocess
import urllib.parse

import html5lib

CORPUS = pathlib.Path(__file__).with_name("xss-corpus.json")

ALLOWED_ELEMENTS = {"p", "br", "strong", "b", "em", "i", "u", "s", "blockquote", "code", "pre",
                    "ul", "ol", "li", "h3", "h4", "a"}
ALLOWED_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "nofollow noopener noreferrer"
XHTML = "{http://www.w3.org/1999/xhtml}"


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tool", default=".build/debug/safehtml-tool",
                        help="path of the built safehtml-tool executable")
    return parser


def load_corpus():
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def sanitize(tool, mode, inputs):
    """Runs safehtml-tool over `inputs` in one process and returns its outputs in order."""
    result = subprocess.run([tool, "sanitize", "--mode", mode], input=json.dumps(inputs).encode(),
                            capture_output=True, check=True)
    if result.stderr:
        raise SystemExit(f"safehtml-tool printed on standard error:\n{result.stderr.decode()}")
    outputs = json.loads(result.stdout)
    assert len(outputs) == len(inputs), "safehtml-tool returned a different number of outputs"
    return outputs


def sanitize_corpus(tool, corpus):
    """Every corpus vector's output, in corpus order; a vector the tool refuses is an error."""
    outputs = [None] * len(corpus)
    for mode in sorted({vector["mode"] for vector in corpus}):
        indices = [i for i, vector in enumerate(corpus) if vector["mode"] == mode]
        for i, output in zip(indices, sanitize(tool, mode, [corpus[i]["input"] for i in indices])):
            if "error" in output:
                raise SystemExit(f"vector {corpus[i]['id']} was refused: {output['error']}")
            outputs[i] = output["html"]
    return outputs


def url_scheme(href):
    """The scheme a browser would see, after it strips what the URL standard strips."""
    stripped = href.strip("".join(chr(c) for c in range(0x21))).replace("\t", "").replace("\n", "").replace("\r", "")
    return urllib.parse.urlsplit(stripped).scheme.lower()


def policy_violations(html):
    """What in `html` breaks the policy, as read by an HTML5 parser (html5lib), as a list of sentences."""
    fragment = html5lib.parseFragment(html, treebuilder="etree", namespaceHTMLElements=True)
    problems = []
    for node in fragment.iter():
        if node is fragment:
            continue
        if not isinstance(node.tag, str):
            problems.append("comment or other non-element node")
            continue
        if not node.tag.startswith(XHTML):
            problems.append(f"element outside the HTML namespace: {node.tag}")
            continue
        name = node.tag[len(XHTML):]
        if name not in ALLOWED_ELEMENTS:
            problems.append(f"element not allowed: <{name}>")
        allowed_attributes = {"href", "title", "rel"} if name == "a" else set()
        for attribute in node.attrib:
            if attribute not in allowed_attributes:
                problems.append(f"attribute not allowed: <{name} {attribute}>")
        if name == "a":
            href = node.attrib.get("href")
            if href is None:
                problems.append("link without href")
            elif url_scheme(href) not in ALLOWED_SCHEMES:
                problems.append(f"link scheme not allowed: {href!r}")
            if node.attrib.get("rel") != LINK_REL:
                problems.append(f"link without rel={LINK_REL!r}: {node.attrib.get('rel')!r}")
    return problems
