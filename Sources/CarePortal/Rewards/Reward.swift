import Foundation
import PortalPlatform

/// A reward a program offers for points: the pharmacy's vouchers shown at the till, the perinatal
/// program's gift cards sent by staff. Every program with points keeps its catalogue here.
struct Reward: Sendable, Equatable {
    /// How the reward reaches her once redeemed.
    enum HandedOver: String, Sendable {
        /// She shows a code at the till, where the cashier checks it (the pharmacy).
        case voucher
        /// The program's staff send it to her, with a gift card's code if it has one.
        case sent
    }

    let id: Int64
    var title: String
    var pointsCost: Int
    /// What she receives: "$5 off any purchase", "$10 grocery gift card".
    var gives: String
    var description: String = ""
    var handedOver: HandedOver = .voucher
    /// How many are left to redeem; nil when there is no limit.
    var stock: Int? = nil
    var isRetired: Bool

    var isOutOfStock: Bool { stock.map { $0 <= 0 } ?? false }

    /// Whether `points` pay for it and one is left to take.
    func isAffordable(with points: Int) -> Bool { pointsCost <= points && !isOutOfStock }
}

/// A reward redeemed by an app account: for a voucher, hers unexpired until she activates it and then good
/// for 5 minutes at the till; for a sent reward, waiting until staff send it.
struct Redemption: Sendable, Equatable {
    let id: Int64
    let account: AppAccountRef
    let rewardID: Int64
    let code: String
    let pointsCost: Int
    let redeemedAt: Date
    var activatedAt: Date?
    var expiresAt: Date?
    var usedAt: Date?
    var sentAt: Date?
    /// What staff sent with it (a gift card's code), opened from its seal.
    var sentNote: String?

    enum State: String, Sendable {
        case redeemed, active, expired, used
    }

    /// A voucher's state at the till.
    func state(at now: Date) -> State {
        if usedAt != nil { return .used }
        guard let expiresAt else { return .redeemed }
        // In whole milliseconds, as stored: the last millisecond before the expiry is the last it is good.
        return expiresAt.millisecondsSince1970 > now.millisecondsSince1970 ? .active : .expired
    }

    var isSent: Bool { sentAt != nil }
}

/// A reward as staff typed it for their program's catalogue, already checked.
struct RewardDraft: Sendable, Equatable {
    var title: String
    var pointsCost: Int
    var gives: String
    var description: String
    var handedOver: Reward.HandedOver
    var stock: Int?
}

enum RewardRules {
    static let titleMaximumLength = 120
    static let givesMaximumLength = 120
    static let descriptionMaximumLength = 300
    static let noteMaximumLength = 200
    static let costRange = 1...100_000
    static let stockRange = 0...100_000
    static let codeLength = 8
    /// Letters and digits that cannot be mistaken for one another when read aloud or typed at the till.
    static let codeAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    /// The points ledger's reason for a spend on a reward (kept from the pharmacy's first vouchers).
    static let spendReason = "voucher_redeemed"

    /// "1 point", "1,250 points".
    static func pointsPhrase(_ points: Int) -> String { points == 1 ? "1 point" : "\(points.formatted()) points" }

    static func normalizedCode(_ typed: String) -> String {
        typed.uppercased().filter { !$0.isWhitespace && $0 != "-" }
    }

    /// A fresh code from the alphabet, drawn without bias from `randomBytes`.
    static func code(_ randomBytes: @Sendable (Int) -> [UInt8]) -> String {
        let limit = 256 - 256 % codeAlphabet.count
        var code = ""
        while code.count < codeLength {
            for byte in randomBytes(16) where Int(byte) < limit && code.count < codeLength {
                code.append(codeAlphabet[Int(byte) % codeAlphabet.count])
            }
        }
        return code
    }
}

extension SealingPurpose {
    /// What staff sent with a redeemed reward: a gift card's code is money to whoever reads it.
    static let rewardNote = SealingPurpose("redemptions.sent_note")
}
