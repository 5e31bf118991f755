import Foundation
import Mustache

/// A view model as the nested dictionaries and arrays the template engine reads fastest.
///
/// The engine otherwise reflects an object again for every name a template looks up (and once more
/// for each enclosing object the name is not found in). Encoding goes through the compiler-made
/// `Encodable` conformance instead, so no reflection happens at all. What the templates see: stored
/// properties by name; nil optionals left out (as the engine treats them anyway); strings, numbers,
/// booleans and dates as they are; an enum with a raw value as that raw value. A model that answers
/// the engine itself (`MustacheParent`) is passed through as it is.
package enum TemplateValues {
    /// `marksText` writes `TemplateValues.textMark` after every non-empty string (`RenderedHTML` excepted):
    /// a `{{value}}` slot escapes the mark, a `{{{value}}}` slot writes it as it is, so a page rendered this
    /// way shows where text reached a raw slot (`PageRenderer.checksRawSlots`).
    package static func box(_ value: some Encodable, marksText: Bool = false) -> Any {
        if let leaf = leaf(value, marksText: marksText) { return leaf }
        let node = Node(marksText: marksText)
        // The encoder below never throws; a model whose own `encode(to:)` throws renders what it wrote.
        try? value.encode(to: NodeEncoder(node: node))
        return node.resolved() ?? [String: Any]()
    }

    /// What a marked string ends with; in a page, only where a raw slot wrote text.
    package static let textMark = "<\u{E000}>"

    /// Values stored as they are.
    fileprivate static func leaf<T: Encodable>(_ value: T, marksText: Bool) -> Any? {
        // The common leaves by their exact type first: comparing types is far cheaper than asking the
        // runtime whether a type conforms to a protocol.
        if T.self == String.self {
            guard marksText, let text = value as? String, !text.isEmpty else { return value }
            return text + textMark
        }
        if T.self == RenderedHTML.self, let html = value as? RenderedHTML { return html.markup }
        if T.self == Int.self || T.self == Bool.self || T.self == Int64.self { return value }
        switch value {
        case is any BinaryInteger, is any BinaryFloatingPoint, is Date, is URL, is any MustacheParent: return value
        default: return nil
        }
    }
}

/// What one value encoded to: a leaf, or a keyed or unkeyed container of further values.
private final class Node {
    package let marksText: Bool
    package var leaf: Any?
    package var keyed: [String: Any]?
    package var unkeyed: [Any]?

    package init(marksText: Bool) {
        self.marksText = marksText
    }

    package func resolved() -> Any? {
        if let keyed { return keyed.compactMapValues(Self.resolve) }
        if let unkeyed { return unkeyed.compactMap(Self.resolve) }
        return leaf
    }

    package static func resolve(_ value: Any) -> Any? {
        (value as? Node).map { $0.resolved() } ?? value
    }

    /// A leaf for a plain value; otherwise the node the value encodes itself into.
    package func make(_ value: some Encodable) -> Any {
        if let leaf = TemplateValues.leaf(value, marksText: marksText) { return leaf }
        let node = Node(marksText: marksText)
        try? value.encode(to: NodeEncoder(node: node))
        return node
    }
}

private struct NodeEncoder: Encoder {
    package let node: Node
    package var codingPath: [any CodingKey] = []
    package var userInfo: [CodingUserInfoKey: Any] = [:]

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.keyed == nil { node.keyed = [:] }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.unkeyed == nil { node.unkeyed = [] }
        return UnkeyedNodeContainer(node: node)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node)
    }

    package init(node: Node, codingPath: [any CodingKey] = [], userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.node = node
        self.codingPath = codingPath
        self.userInfo = userInfo
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    package let node: Node
    package var codingPath: [any CodingKey] = []

    package mutating func encodeNil(forKey key: Key) {}

    package mutating func encode(_ value: some Encodable, forKey key: Key) {
        node.keyed?[key.stringValue] = node.make(value)
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey>
    {
        let child = Node(marksText: node.marksText)
        node.keyed?[key.stringValue] = child
        return NodeEncoder(node: child).container(keyedBy: keyType)
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node(marksText: node.marksText)
        node.keyed?[key.stringValue] = child
        return NodeEncoder(node: child).unkeyedContainer()
    }

    package mutating func superEncoder() -> any Encoder { NodeEncoder(node: node) }
    package mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node) }

    package init(node: Node, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    package let node: Node
    package var codingPath: [any CodingKey] = []
    package var count: Int { node.unkeyed?.count ?? 0 }

    package mutating func encodeNil() {}

    package mutating func encode(_ value: some Encodable) {
        node.unkeyed?.append(node.make(value))
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Node(marksText: node.marksText)
        node.unkeyed?.append(child)
        return NodeEncoder(node: child).container(keyedBy: keyType)
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Node(marksText: node.marksText)
        node.unkeyed?.append(child)
        return NodeEncoder(node: child).unkeyedContainer()
    }

    package mutating func superEncoder() -> any Encoder { NodeEncoder(node: node) }

    package init(node: Node, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    package let node: Node
    package var codingPath: [any CodingKey] = []

    package mutating func encodeNil() {}

    package mutating func encode(_ value: some Encodable) {
        if let leaf = TemplateValues.leaf(value, marksText: node.marksText) {
            node.leaf = leaf
        } else {
            try? value.encode(to: NodeEncoder(node: node))
        }
    }

    package init(node: Node, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }
}
