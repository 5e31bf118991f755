import Foundation
import PortalPlatform

/// The activities a patient's statistics are about (seed 3.7.2–3.7.3): one item, a group of items she
/// chooses, or every medication or every exercise; everything when nothing is chosen.
struct StatisticsSelection: Sendable, Equatable {
    /// `medication:12`: the item's kind and its catalogue id, as the statistics name each item.
    struct Item: Hashable, Sendable {
        let kind: Prescription.Kind
        let itemID: Int64

        init(kind: Prescription.Kind, itemID: Int64) {
            self.kind = kind
            self.itemID = itemID
        }

        init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let kind = Prescription.Kind(rawValue: String(parts[0])), let id = Int64(parts[1]), id > 0 else { return nil }
            self.init(kind: kind, itemID: id)
        }

        var text: String { "\(kind.rawValue):\(itemID)" }
    }

    static let maximumItems = 50
    let items: Set<Item>
    let kind: Prescription.Kind?

    /// The selection as the app sends it; a malformed one is refused with the field's problem.
    init(items: [String], kind: String?) throws {
        var problems: [String: String] = [:]
        let parsed = items.map { Item($0) }
        if parsed.contains(where: { $0 == nil }) || items.count > Self.maximumItems {
            problems["item"] = "Give up to \(Self.maximumItems) items as kind:id, like exercise:12, from the items of your statistics"
        }
        let chosenKind = kind.flatMap(Prescription.Kind.init(rawValue:))
        if kind != nil, chosenKind == nil { problems["kind"] = "Choose medication or exercise" }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        self.items = Set(parsed.compactMap { $0 })
        self.kind = chosenKind
    }

    /// Her prescriptions of the chosen activities; an item that is not in her regimen is refused.
    func prescriptions(of all: [Prescription]) throws -> [Prescription] {
        let hers = Set(all.map { Item(kind: $0.kind, itemID: $0.itemID) })
        if let stranger = items.first(where: { !hers.contains($0) }) {
            throw APIError.validation(["item": "\(stranger.text) is not one of your medications or exercises"])
        }
        return all.filter { prescription in
            (kind.map { prescription.kind == $0 } ?? true)
                && (items.isEmpty || items.contains(Item(kind: prescription.kind, itemID: prescription.itemID)))
        }
    }
}
