import Foundation
import PortalPlatform
import SQLKit

struct StaffAccountPage: Page {
    typealias Detail = SummaryListRow

    static let template = TemplateName.staffAccount
    let layout: Layout
    let username: String
    let statusTitle: String
    let statusTag: String
    let details: [Detail]
    let physicianDetails: [Detail]
    /// Only administrators open this page, so the real name and date of birth can be shown here.
    let medicalProfessionalDetails: [Detail]
    let activeSessions: Int
    let approvePath: String?
    let disablePath: String?
    let enablePath: String?
    let isSelf: Bool
    let sendPasswordResetPath: String?
    let deletePath: String?
    let resetSecondFactorPath: String?
    let staffListPath = SiteURL.staff.path
    let auditPath: String
}

extension StaffAccountPage {
    /// An account and what is kept beside it.
    struct Record: Sendable {
        let account: StaffAccount
        let physicianProfile: PhysicianProfile?
        let staffProfile: StaffProfile?
        let activeSessions: Int
        let secondFactor: StoredSecondFactor?
    }

    /// Nil when there is no such account.
    static func load(accountID id: Int64, on db: any SQLDatabase) async throws -> Record? {
        guard let account = try await StaffAccountRepository().find(id: id, on: db) else { return nil }
        return Record(
            account: account,
            physicianProfile: try await StaffAccountRepository().physicianProfile(accountID: id, on: db),
            staffProfile: try await StaffProfileRepository().find(accountID: id, on: db),
            activeSessions: try await SessionRepository().count(accountID: id, on: db),
            secondFactor: try await SecondFactorRepository().find(accountID: id, on: db)
        )
    }

    /// `viewerID` is the administrator looking, who cannot disable or delete her own account.
    init(layout: Layout, record: Record, viewerID: Int64?, clock: ProgramClock) {
        let account = record.account
        let id = account.id
        let factor = record.secondFactor
        let isSelf = viewerID == id
        self.init(
            layout: layout,
            username: account.username,
            statusTitle: account.status.title,
            statusTag: account.status.tagClass,
            details: Self.details(account, secondFactor: factor, clock: clock),
            physicianDetails: record.physicianProfile.map(Self.physicianDetails) ?? [],
            medicalProfessionalDetails: record.staffProfile.map(Self.medicalProfessionalDetails) ?? [],
            activeSessions: record.activeSessions,
            approvePath: account.status == .awaitingApproval ? SiteURL.staffApprove(id).path : nil,
            disablePath: account.status != .disabled && !isSelf ? SiteURL.staffDisable(id).path : nil,
            enablePath: account.status == .disabled ? SiteURL.staffEnable(id).path : nil,
            isSelf: isSelf,
            sendPasswordResetPath: account.status == .active && account.email != nil ? SiteURL.staffSendPasswordReset(id).path : nil,
            deletePath: isSelf ? nil : SiteURL.staffDelete(id).path,
            resetSecondFactorPath: factor == nil ? nil : SiteURL.staffResetSecondFactor(id).path,
            auditPath: ListAddress(path: SiteURL.auditLog.path, parameters: [("person", "\(id)")]).string
        )
    }

    static func details(_ account: StaffAccount, secondFactor factor: StoredSecondFactor?, clock: ProgramClock) -> [Detail] {
        [
            Detail(key: "Username", value: account.username),
            Detail(key: "Role", value: account.role.title),
            Detail(key: "Email address", value: account.email ?? "Not given"),
            Detail(key: "Account created", value: clock.dateTime(account.createdAt)),
            Detail(key: "Last changed", value: clock.dateTime(account.updatedAt)),
            Detail(
                key: "Two-factor sign-in",
                value: factor?.confirmedAt.map { "On since \(clock.dateTime($0))" } ?? (factor == nil ? "Off" : "Being set up")
            )
        ]
    }

    static func physicianDetails(_ profile: PhysicianProfile) -> [Detail] {
        [
            Detail(key: "Name", value: profile.fullName),
            Detail(key: "Location of practice", value: profile.practiceLocation),
            Detail(key: "Practice phone", value: profile.practicePhone.isEmpty ? "Not given" : PhoneNumber(stored: profile.practicePhone).display),
            Detail(key: "Medical identification number", value: profile.medicalIDNumber)
        ]
    }

    static func medicalProfessionalDetails(_ profile: StaffProfile) -> [Detail] {
        [
            Detail(key: "Real name", value: profile.fullName),
            Detail(key: "Date of birth", value: profile.dateOfBirth.displayed),
            Detail(key: "Avatar", value: profile.avatar.name),
            Detail(key: "Bio", value: profile.bio.isEmpty ? "None" : profile.bio)
        ]
    }
}
