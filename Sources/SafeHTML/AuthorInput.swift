#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// What an author typed, checked against the limits and normalised before any parser reads it.
struct AuthorInput {
    /// The most a post or message may hold, in bytes of UTF-8.
    static let maximumBytes = 64 * 1024

    /// Valid UTF-8 without NUL bytes, every line ending a single LF.
    let bytes: [UInt8]

    init(_ source: String) throws(SafeHTMLError) {
        try self.init(checkedUTF8: source.utf8)
    }

    init(validating source: some Collection<UInt8>) throws(SafeHTMLError) {
        try Self.checkSize(source.count)
        let bytes = Array(source)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .invalidUTF8(byteOffset: Self.firstInvalidUTF8Offset(in: bytes))
        }
        self.init(normalizing: bytes)
    }

    private init(checkedUTF8 source: String.UTF8View) throws(SafeHTMLError) {
        try Self.checkSize(source.count)
        self.init(normalizing: Array(source))
    }

    private init(normalizing source: [UInt8]) {
        let needsNormalizing = source.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return false }
            return memchr(start, 0, buffer.count) != nil || memchr(start, 0x0D, buffer.count) != nil
        }
        guard needsNormalizing else {
            self.bytes = source
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.count)
        var previousWasCarriageReturn = false
        for byte in source {
            switch byte {
            case 0:
                // NUL ends strings in C and is ignored unpredictably by browsers.
                continue
            case UInt8(ascii: "\r"):
                bytes.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "\n") where previousWasCarriageReturn:
                break
            default:
                bytes.append(byte)
            }
            previousWasCarriageReturn = byte == UInt8(ascii: "\r")
        }
        self.bytes = bytes
    }

    private static func checkSize(_ count: Int) throws(SafeHTMLError) {
        guard count <= maximumBytes else {
            throw .tooLarge(limit: maximumBytes, actual: count)
        }
    }

    /// Where the first bad sequence starts, in bytes known not to be UTF-8.
    private static func firstInvalidUTF8Offset(in source: [UInt8]) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = source.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) {
            offset += scalar.count
        }
        return offset
    }
}

extension AuthorInput {
    /// HTML our own Markdown renderer produced from checked input; it may be longer than the limit.
    init(renderedHTML: [UInt8]) {
        self.bytes = renderedHTML
    }
}
