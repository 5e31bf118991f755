import Foundation
import PortalPlatform

/// What a care receiver lets one caregiver do, each granted separately.
enum CareScope: String, CaseIterable, Sendable, Comparable {
    /// See her reminders, appointments and to-dos.
    case reminders
    /// Add and change her appointments and to-dos.
    case plans
    /// See her memories of the categories she chose (never a secured one).
    case memories
    /// See where she last was.
    case location

    /// What the scope lets a caregiver do, in her words.
    var sentence: String {
        switch self {
        case .reminders: "see your reminders and appointments"
        case .plans: "add and change your appointments and to-dos"
        case .memories: "see your memories in the categories you chose"
        case .location: "see where you are"
        }
    }

    static func < (lhs: CareScope, rhs: CareScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A link's or an invitation's grant: its scopes, and for `memories` the categories shared.
struct CareGrant: Sendable, Equatable {
    var scopes: Set<CareScope>
    var categories: Set<MemoryCategory>

    init(scopes: Set<CareScope>, categories: Set<MemoryCategory>) {
        self.scopes = scopes
        self.categories = scopes.contains(.memories) ? categories : []
    }

    init(stored scopes: String, categories: String) {
        self.init(
            scopes: Set(scopes.split(separator: ",").compactMap { CareScope(rawValue: String($0)) }),
            categories: Set(categories.split(separator: ",").compactMap { MemoryCategory(rawValue: String($0)) })
        )
    }

    var sortedScopes: [CareScope] { scopes.sorted() }
    var sortedCategories: [MemoryCategory] { MemoryCategory.allCases.filter(categories.contains) }
    var storedScopes: String { sortedScopes.map(\.rawValue).joined(separator: ",") }
    var storedCategories: String { sortedCategories.map(\.rawValue).joined(separator: ",") }

    func allows(_ scope: CareScope) -> Bool { scopes.contains(scope) }

    /// The grant the API's `scopes` and `categories` ask for, or the problems with them by field.
    static func parse(scopes: [String]?, categories: [String]?) -> Result<CareGrant, APIError> {
        var problems: [String: String] = [:]
        let scopes = scopes ?? []
        let parsedScopes = scopes.compactMap(CareScope.init(rawValue:))
        if scopes.isEmpty {
            problems["scopes"] = "Choose at least one thing to share: \(CareScope.allCases.map(\.rawValue).joined(separator: ", "))"
        } else if parsedScopes.count != scopes.count {
            problems["scopes"] = "Choose from \(CareScope.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        let categories = categories ?? []
        let parsedCategories = categories.compactMap(MemoryCategory.init(rawValue:))
        if parsedCategories.count != categories.count {
            problems["categories"] = "Choose categories from \(MemoryCategory.allCases.map(\.rawValue).joined(separator: ", "))"
        } else if parsedScopes.contains(.memories), categories.isEmpty {
            problems["categories"] = "Choose which categories of memories to share"
        } else if !parsedScopes.contains(.memories), !categories.isEmpty {
            problems["categories"] = "Categories are only for sharing memories: add memories to the scopes, or leave categories out"
        }
        guard problems.isEmpty else { return .failure(.validation(problems)) }
        return .success(CareGrant(scopes: Set(parsedScopes), categories: Set(parsedCategories)))
    }
}

/// An invitation code she made; the code itself is shown once and kept only as a hash.
struct CareInvitation: Sendable {
    let id: Int64
    let receiverID: Int64
    let grant: CareGrant
    let createdAt: Date
    let expiresAt: Date
}

/// A link between a care receiver and a caregiver.
struct CareLink: Sendable {
    let id: Int64
    let receiverID: Int64
    let caregiverID: Int64
    let grant: CareGrant
    let receiverName: String
    let caregiverName: String
    let createdAt: Date
    let revokedAt: Date?

    var isActive: Bool { revokedAt == nil }
}

/// One grant, change or revocation of a link, with when and who.
struct CareLinkEvent: Sendable {
    enum Kind: String, Sendable {
        case granted, changed, revoked
    }

    /// Who did it: the care receiver, the caregiver, or a staff member (by id).
    struct Actor: Sendable, Equatable {
        let role: String
        let id: Int64?

        static func careReceiver(_ id: Int64) -> Actor { Actor(role: AppAccountKind.careReceiver.role, id: id) }
        static func caregiver(_ id: Int64) -> Actor { Actor(role: AppAccountKind.caregiver.role, id: id) }
        static func staff(_ id: Int64?) -> Actor { Actor(role: "staff", id: id) }

        /// "you", "the caregiver", "the program's staff": as the care receiver reads it.
        var description: String {
            switch role {
            case AppAccountKind.careReceiver.role: "care receiver"
            case AppAccountKind.caregiver.role: "caregiver"
            default: "staff"
            }
        }
    }

    let at: Date
    let kind: Kind
    let actor: Actor
    let grant: CareGrant
}

/// One read by a caregiver, for her access log.
struct CareAccessEntry: Sendable {
    enum What: String, Sendable {
        case reminders, memories, memory, location

        /// "your reminders and appointments": what she is told was seen.
        var seen: String {
            switch self {
            case .reminders: "your reminders and appointments"
            case .memories: "your shared memories"
            case .memory: "one of your memories"
            case .location: "where you are"
            }
        }
    }

    let at: Date
    let caregiverID: Int64
    /// Nil when that caregiver's account has since been deleted.
    let caregiverName: String?
    let what: What
    let recordID: Int64?
}

/// Her latest location, as her app sent it.
struct CareLocation: Sendable {
    let latitude: Double
    let longitude: Double
    let accuracyMetres: Double?
    let at: Date
}

/// The support phone and email the memory-care apps show.
struct CareSettings: Sendable, Equatable {
    var supportPhone: String
    var supportEmail: String
}

/// Invitation codes: eight characters from an alphabet without look-alikes (no 0/O, 1/I/L), read over the
/// phone as two groups of four. Typed in any case, with or without spaces and the hyphen.
enum InvitationCode {
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    static let lifetime: TimeInterval = 72 * 3_600

    static func make(randomBytes: @Sendable (Int) -> [UInt8]) -> String {
        // 31 symbols: reject bytes past the last whole multiple so every symbol is equally likely.
        var symbols: [Character] = []
        while symbols.count < 8 {
            for byte in randomBytes(16) where Int(byte) < 248 && symbols.count < 8 {
                symbols.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(symbols[0..<4]) + "-" + String(symbols[4..<8])
    }

    /// The code as compared: upper case, without spaces or hyphens; nil when it cannot be one.
    static func normalized(_ typed: String) -> String? {
        let code = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard code.count == 8, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }

    static func hash(_ typed: String) -> String? {
        normalized(typed).map { SecretToken.hash("care-invitation:\($0)") }
    }
}
