/// Why a text could not be made safe to show; `message` is written for the person who typed it.
public enum SafeHTMLError: Error, Sendable, Equatable {
    /// The text is longer than a post may be, in bytes of UTF-8.
    case tooLarge(limit: Int, actual: Int)
    /// The bytes are not valid UTF-8; `byteOffset` is where the first bad sequence starts.
    case invalidUTF8(byteOffset: Int)

    public var message: String {
        switch self {
        case let .tooLarge(limit, actual):
            "This text is \(kibibytes(actual)) KB, but a post can hold at most \(kibibytes(limit)) KB. Please shorten it."
        case .invalidUTF8:
            "This text contains characters that could not be read. Please copy it again from its source, or retype it."
        }
    }

    private func kibibytes(_ bytes: Int) -> Int {
        (bytes + 1023) / 1024
    }
}
