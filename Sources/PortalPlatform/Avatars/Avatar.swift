/// A picture a person chooses to stand for her: members pick from the member set, medical
/// professionals from the medical set, whose pictures carry a visible medical mark.
public struct Avatar: Sendable, Equatable, Identifiable {
    public let id: String
    public let name: String
    public let isMedical: Bool

    public var path: String { "/static/img/avatars/\(id).svg" }

    /// Every member avatar; program settings choose which of them are offered.
    public static let memberSet: [Avatar] = [
        ("sun", "Sun"), ("moon", "Moon"), ("leaf", "Leaf"), ("flower", "Flower"),
        ("star", "Star"), ("heart", "Heart"), ("wave", "Wave"), ("bird", "Bird")
    ].map { Avatar(id: $0.0, name: $0.1, isMedical: false) }

    /// Every medical-professional avatar; each shows a white cross on a badge.
    public static let medicalSet: [Avatar] = [
        ("medical-heart", "Heart with medical mark"), ("medical-leaf", "Leaf with medical mark"),
        ("medical-star", "Star with medical mark"), ("medical-sun", "Sun with medical mark")
    ].map { Avatar(id: $0.0, name: $0.1, isMedical: true) }

    /// The member avatar used when she chooses none.
    public static let memberDefault = memberSet[0]
    public static let medicalDefault = medicalSet[0]

    public static func member(_ id: String) -> Avatar? { memberSet.first { $0.id == id } }
    public static func medical(_ id: String) -> Avatar? { medicalSet.first { $0.id == id } }
    /// Any avatar by id, for showing one that was chosen earlier.
    public static func any(_ id: String) -> Avatar? { member(id) ?? medical(id) }

    package init(id: String, name: String, isMedical: Bool) {
        self.id = id
        self.name = name
        self.isMedical = isMedical
    }
}
