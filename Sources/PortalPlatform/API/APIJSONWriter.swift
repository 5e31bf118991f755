import Foundation
import Synchronization

/// Writes the API's JSON: the same bytes as Foundation's `JSONEncoder` set up as `APIJSON.encoder`
/// (snake_case keys, keys sorted, instants as ISO 8601 in whole seconds, UTC, slashes unescaped),
/// in a fraction of its time.
///
/// Foundation converts every key to snake case again each time it is written and asks the runtime
/// about every value's type; on a feed page of 25 entries that was a quarter of the request. Here
/// each key is converted once (by Foundation itself, so the result is the same) and remembered, and
/// the common values are told apart by comparing types. While `comparesWithFoundation` is on (the
/// test suites turn it on), every response is also encoded by Foundation and a difference is an error.
package enum APIJSONWriter {
    /// Encodes `value` as the API's JSON.
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        let leaves = Leaves()
        let root = try box(value, leaves)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(leaves.bytes.count + 256)
        root.write(to: &bytes, leaves: leaves.bytes)
        if comparesWithFoundation.load(ordering: .relaxed) {
            let expected = [UInt8](try APIJSON.encoder.encode(value))
            guard expected == bytes else {
                throw Difference(ours: String(decoding: bytes, as: UTF8.self), foundations: String(decoding: expected, as: UTF8.self))
            }
        }
        return bytes
    }

    /// On in the test suites: each encoding is checked against Foundation's.
    package static let comparesWithFoundation = Atomic(false)

    /// The writer and Foundation disagreed (only while `comparesWithFoundation` is on).
    package struct Difference: Error, CustomStringConvertible {
        package let ours: String
        package let foundations: String
        package var description: String { "the API's JSON writer wrote \(ours) where Foundation writes \(foundations)" }
    }

    /// The strings and numbers of one encoding, written out one after another as they are met; the
    /// values hold where theirs are, so a leaf costs no allocation of its own.
    fileprivate final class Leaves {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(1_024) }

        func add(_ write: (inout [UInt8]) -> Void) -> Value {
            let start = bytes.count
            write(&bytes)
            return .written(start..<bytes.count)
        }

        func add(_ text: String) -> Value {
            add { $0.append(contentsOf: text.utf8) }
        }

        func quoted(_ text: String) -> Value {
            add { APIJSONWriter.writeString(text, to: &$0) }
        }
    }

    /// A value as JSON: a leaf written out already (its bytes in `Leaves`), a literal, or a container.
    fileprivate enum Value {
        case written(Range<Int>)
        case yes, no, null
        case object(Object)
        case array(List)

        func write(to bytes: inout [UInt8], leaves: [UInt8]) {
            switch self {
            case .written(let range):
                bytes.append(contentsOf: leaves[range])
            case .yes:
                bytes.append(contentsOf: "true".utf8)
            case .no:
                bytes.append(contentsOf: "false".utf8)
            case .null:
                bytes.append(contentsOf: "null".utf8)
            case .object(let object):
                bytes.append(UInt8(ascii: "{"))
                // Keys in byte order, as Foundation's `.sortedKeys` puts them.
                let members = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                for (index, member) in members.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    APIJSONWriter.writeString(member.key, to: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    member.value.write(to: &bytes, leaves: leaves)
                }
                bytes.append(UInt8(ascii: "}"))
            case .array(let array):
                bytes.append(UInt8(ascii: "["))
                for (index, item) in array.items.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    item.write(to: &bytes, leaves: leaves)
                }
                bytes.append(UInt8(ascii: "]"))
            }
        }
    }

    fileprivate final class Object {
        var members: [(key: String, value: Value)] = []

        /// Sets `key` (already in snake case); a key set twice keeps its last value, as Foundation's does.
        func set(_ key: String, _ value: Value) {
            if let index = members.firstIndex(where: { $0.key == key }) {
                members[index].value = value
            } else {
                members.append((key, value))
            }
        }
    }

    fileprivate final class List {
        var items: [Value] = []
    }

    /// A value as JSON: the common leaves by their exact type (far cheaper than asking the runtime
    /// whether a type conforms to a protocol), then the types Foundation writes specially, then
    /// whatever the value encodes itself as.
    fileprivate static func box<T: Encodable>(_ value: T, _ leaves: Leaves) throws -> Value {
        if T.self == String.self { return leaves.quoted(value as! String) }
        if let writing = value as? any APIJSONSelfWriting {
            var object = APIJSONObject()
            try writing.writeJSON(to: &object)
            return leaves.add { $0.append(contentsOf: object.finished()) }
        }
        if T.self == Int.self { return leaves.add((value as! Int).description) }
        if T.self == Int64.self { return leaves.add((value as! Int64).description) }
        if T.self == Bool.self { return (value as! Bool) ? .yes : .no }
        if T.self == Double.self { return leaves.add(try number(value as! Double)) }
        if T.self == Date.self { return leaves.add { writeInstant(value as! Date, to: &$0) } }
        if T.self == URL.self { return leaves.quoted((value as! URL).absoluteString) }
        if T.self == Data.self { return leaves.quoted((value as! Data).base64EncodedString()) }
        if T.self == Decimal.self { return leaves.add((value as! Decimal).description) }
        if T.self == Float.self { return leaves.add(try number(Double(value as! Float), description: (value as! Float).description)) }
        if let integer = value as? any BinaryInteger { return leaves.add(String(describing: integer)) }
        if let dictionary = value as? any StringKeyedDictionary { return try dictionary.jsonObject(leaves) }
        let encoder = ValueEncoder(leaves: leaves)
        try value.encode(to: encoder)
        return encoder.value ?? .object(Object())
    }

    /// A number as Foundation writes it: Swift's shortest form, without a trailing `.0`.
    private static func number(_ value: Double, description: String? = nil) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON has no \(value)"))
        }
        var text = description ?? value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// "2026-11-25T07:10:00Z", quoted: the instant's whole second (earlier instants rounded down), in UTC.
    fileprivate static func writeInstant(_ date: Date, to bytes: inout [UInt8]) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CalendarDate.civil(dayNumber: Int(days))
        guard (0...9_999).contains(year) else {
            // Foundation's own formatting, for instants no record of ours holds.
            writeString(Date.ISO8601FormatStyle().format(date), to: &bytes)
            return
        }
        func digits(_ number: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(number / divisor % 10))
                divisor /= 10
            }
        }
        bytes.append(UInt8(ascii: "\""))
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3_600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 3_600 / 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX`;
    /// everything else (non-ASCII, and slashes unless `escapingSlashes`, as Foundation's default does) as it is.
    package static func writeString(_ text: String, to bytes: inout [UInt8], escapingSlashes: Bool = false) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "/") where escapingSlashes: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10 }
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex(byte >> 4), hex(byte & 0xF)
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Keys in snake case, each converted by Foundation once and remembered (the API's keys are a
    /// fixed set: its types' coding keys).
    fileprivate static func snakeCase(_ key: String) -> String {
        if let known = snakeCases.withLock({ $0[key] }) { return known }
        let converted = foundationSnakeCase(key)
        snakeCases.withLock { known in
            if known.count < 10_000 { known[key] = converted }
        }
        return converted
    }

    private static let snakeCases = Mutex<[String: String]>([:])

    /// What Foundation's `.convertToSnakeCase` makes of `key`: it encodes an object with that one key and reads it back.
    private static func foundationSnakeCase(_ key: String) -> String {
        struct OneKey: Encodable {
            let key: String
            struct Name: CodingKey {
                let stringValue: String
                init(stringValue: String) { self.stringValue = stringValue }
                var intValue: Int? { nil }
                init?(intValue: Int) { nil }
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Name.self)
                try container.encode(0, forKey: Name(stringValue: key))
            }
        }
        guard let data = try? APIJSON.encoder.encode(OneKey(key: key)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let converted = object.keys.first
        else { return key }
        return converted
    }

    /// The `Encoder` a value that is not a leaf encodes itself into.
    private final class ValueEncoder: Encoder {
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var value: Value?
        let leaves: Leaves

        init(leaves: Leaves) { self.leaves = leaves }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object(let object) = value { return KeyedEncodingContainer(KeyedContainer(object: object, leaves: leaves)) }
            let object = Object()
            value = .object(object)
            return KeyedEncodingContainer(KeyedContainer(object: object, leaves: leaves))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array(let array) = value { return UnkeyedContainer(array: array, leaves: leaves) }
            let array = List()
            value = .array(array)
            return UnkeyedContainer(array: array, leaves: leaves)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(encoder: self)
        }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let object: Object
        let leaves: Leaves
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) { object.set(snakeCase(key.stringValue), .null) }

        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            object.set(snakeCase(key.stringValue), try box(value, leaves))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = Object()
            object.set(snakeCase(key.stringValue), .object(child))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: child, leaves: leaves))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = List()
            object.set(snakeCase(key.stringValue), .array(child))
            return UnkeyedContainer(array: child, leaves: leaves)
        }

        mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

        private func superEncoder(named name: String) -> any Encoder {
            let child = ValueEncoder(leaves: leaves)
            let object = Object()
            child.value = .object(object)
            self.object.set(snakeCase(name), .object(object))
            return child
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let array: List
        let leaves: Leaves
        var codingPath: [any CodingKey] { [] }
        var count: Int { array.items.count }

        mutating func encodeNil() { array.items.append(.null) }

        mutating func encode(_ value: some Encodable) throws { array.items.append(try box(value, leaves)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = Object()
            array.items.append(.object(child))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: child, leaves: leaves))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = List()
            array.items.append(.array(child))
            return UnkeyedContainer(array: child, leaves: leaves)
        }

        mutating func superEncoder() -> any Encoder {
            let child = ValueEncoder(leaves: leaves)
            let object = Object()
            child.value = .object(object)
            array.items.append(.object(object))
            return child
        }
    }

    private struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() { encoder.value = .null }

        mutating func encode(_ value: some Encodable) throws { encoder.value = try box(value, encoder.leaves) }
    }
}

/// A dictionary with string keys: Foundation writes it as an object whose keys stay as they are (no snake case).
private protocol StringKeyedDictionary {
    func jsonObject(_ leaves: APIJSONWriter.Leaves) throws -> APIJSONWriter.Value
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    fileprivate func jsonObject(_ leaves: APIJSONWriter.Leaves) throws -> APIJSONWriter.Value {
        let object = APIJSONWriter.Object()
        for (key, value) in self { object.members.append((key, try APIJSONWriter.box(value, leaves))) }
        return .object(object)
    }
}

/// A record that writes its own JSON object, for the longest lists (a care receiver's memories), where
/// building each record's keyed container was most of a page's time. It writes its fields in the order
/// Foundation's sorted snake-case keys give, leaving out what it would leave out; while the test suites
/// compare every response with Foundation's bytes, a writer that strays fails the test that used it.
package protocol APIJSONSelfWriting: Encodable {
    func writeJSON(to object: inout APIJSONObject) throws
}

/// One JSON object written field by field: each key as given (already snake case), in the order written.
package struct APIJSONObject {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    package init() {
        bytes.reserveCapacity(512)
    }

    private mutating func key(_ key: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    package mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        APIJSONWriter.writeString(value, to: &bytes)
    }

    package mutating func field(_ name: StaticString, _ value: Int64) {
        key(name)
        bytes.append(contentsOf: value.description.utf8)
    }

    package mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    package mutating func field(_ name: StaticString, _ value: Date) {
        key(name)
        APIJSONWriter.writeInstant(value, to: &bytes)
    }

    package mutating func field(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            APIJSONWriter.writeString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    package mutating func field(_ name: StaticString, _ values: [Int64]?) {
        guard let values else { return }
        key(name)
        bytes.append(contentsOf: "[\(values.map(\.description).joined(separator: ","))]".utf8)
    }

    /// Anything else (nested records, dictionaries), through the writer's general path; left out when nil.
    package mutating func field(_ name: StaticString, encoding value: (some Encodable)?) throws {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: try APIJSONWriter.encode(value))
    }

    fileprivate mutating func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
