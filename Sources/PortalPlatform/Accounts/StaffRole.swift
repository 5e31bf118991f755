/// What a member of staff does in the portal; each route names the roles that may use it.
public enum StaffRole: String, Sendable, CaseIterable, Codable {
    case administrator
    case medicalProfessional = "medical_professional"
    case physician
    case pharmacist
    /// Runs a research study: its participants, daily to-dos, feedback and exports, and nothing else.
    case researcher

    /// The name people see.
    public var title: String {
        switch self {
        case .administrator: "Administrator"
        case .medicalProfessional: "Medical professional"
        case .physician: "Physician"
        case .pharmacist: "Pharmacist"
        case .researcher: "Researcher"
        }
    }
}

/// Whether an account may sign in.
public enum AccountStatus: String, Sendable, CaseIterable, Codable {
    case active
    case disabled
    /// A physician who registered and waits for an administrator's approval.
    case awaitingApproval = "awaiting_approval"

    public var title: String {
        switch self {
        case .active: "Active"
        case .disabled: "Disabled"
        case .awaitingApproval: "Waiting for approval"
        }
    }
}
