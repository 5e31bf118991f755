import Foundation
import PortalPlatform
import SQLKit

/// What an administrator reads of a member on her record's page.
struct MemberRecord: Sendable {
    let member: Member
    /// The sign-up code she joined with, when it is still on file.
    let code: SignUpCode?
    let signIns: [MemberSignIn]
    let points: MemberPointsSummary

    /// Her record; nil when there is no such member.
    static func load(id: Int64, clock: ProgramClock, on db: any SQLDatabase) async throws -> MemberRecord? {
        guard let member = try await MemberRepository().find(id: id, on: db) else { return nil }
        let code = try await member.signUpCodeID.asyncMap { try await SignUpCodeRepository().find(id: $0, on: db) } ?? nil
        let signIns = try await MemberRepository().signIns(memberID: id, on: db)
        let points = try await MemberPointsSummary.load(memberID: id, clock: clock, on: db)
        return MemberRecord(member: member, code: code, signIns: signIns, points: points)
    }
}

extension MemberPage {
    init(_ record: MemberRecord, clock: ProgramClock, layout: Layout) {
        let (member, id) = (record.member, record.member.id)
        let location = [member.usState, member.zipCode].compactMap { $0 }.joined(separator: " ")
        let codeText = record.code.map {
            "#\($0.id), used \(clock.dateTime($0.usedAt ?? $0.createdAt))" + ($0.note.isEmpty ? "" : " (note: \($0.note))")
        }
        self.init(
            layout: layout,
            pseudonym: member.pseudonym,
            avatarPath: member.avatar.path,
            avatarName: member.avatar.name,
            statusTitle: member.status.title,
            statusTag: member.status.tagClass,
            profile: [
                .init(key: "Cohort", value: member.cohort.name),
                .init(key: "Due date", value: member.dueDate.displayed),
                .init(key: "Joined", value: clock.dateTime(member.createdAt)),
                .init(key: "Last active", value: clock.dateTime(member.lastActiveAt)),
                .init(key: "Location", value: location.isEmpty ? "Not given" : location),
                .init(key: "Bio", value: member.bio.isEmpty ? "None" : member.bio)
            ],
            privateDetails: [
                .init(key: "Recovery email", value: member.recoveryEmail),
                .init(key: "Security question", value: member.securityQuestion),
                .init(key: "Sign-up code", value: codeText ?? "Not recorded")
            ],
            signIns: record.signIns.map {
                .init(when: clock.dateTime($0.happenedAt), what: $0.kind.title, address: $0.address ?? "—", device: $0.userAgent ?? "—")
            },
            points: record.points,
            disablePath: member.status == .active ? SiteURL.memberDisable(id).path : nil,
            enablePath: member.status == .disabled ? SiteURL.memberEnable(id).path : nil,
            deletePath: SiteURL.memberDelete(id).path,
            cohortPath: ListAddress(path: SiteURL.members.path, parameters: [("cohort", "\(member.cohort.id)")]).string,
            auditPath: ListAddress(path: SiteURL.auditLog.path, parameters: [("record", "member:\(id)")]).string
        )
    }
}
