import Foundation
import PortalPlatform
import SQLKit

/// Demo members and sign-up codes for `seed-demo`.
extension DemoData {
    static let memberCount = 36

    /// Members spread over eleven due months (two past, nine ahead), each with the code she used; and
    /// codes not used yet, revoked and expired, so every status shows in the lists.
    func seedMembers(createdBy: Int64, on db: any SQLDatabase) async throws {
        let members = MemberRepository()
        let codes = SignUpCodeRepository()
        let today = CalendarDate(now)
        let first = ["Hopeful", "Brave", "Gentle", "Steady", "Quiet", "Sunny", "Morning", "River", "Willow", "Maple", "Clover", "Juniper"]
        let second = ["Robin", "Wren", "Lark", "Finch", "Heron", "Sparrow", "Dove", "Swan", "Kestrel"]
        let bios = [
            "", "Second baby, first time doing this sober.", "Nine months in recovery and counting.",
            "Mum of two. Here for the company at 3am.", "", "On methadone since March; feeling stronger.", "Nervous but hopeful."
        ]
        let states: [(String?, String?)] = [("TN", "37203"), (nil, nil), ("KY", "40202"), ("TN", "37916"), (nil, nil), ("OH", "45202")]
        let questions = ProgramSettings.defaults(programName: "").securityQuestions
        for index in 0..<DemoData.memberCount {
            let pseudonym = "\(first[index % first.count])_\(second[(index * 5 + index / first.count) % second.count])\(index / 9 + 1)"
            let dueDate = today.adding(months: index % 11 - 2)
            let joined = now.addingTimeInterval(-Double((DemoData.memberCount - index) * 86_400 * 2 + index * 3_600))
            let (code, _) = try await codes.issue(
                note: "demo: \(pseudonym)",
                lifetime: 30 * 86_400,
                createdBy: createdBy,
                randomBytes: dependencies.randomBytes,
                now: joined.addingTimeInterval(-86_400),
                on: db
            )
            let cohort = try await members.cohort(dueMonth: dueDate.monthKey, now: joined, on: db)
            let location = states[index % states.count]
            let member = try await members.create(
                NewMember(
                    pseudonym: pseudonym,
                    passwordHash: appPasswordHash,
                    avatarID: Avatar.memberSet[index % Avatar.memberSet.count].id,
                    dueDate: dueDate,
                    recoveryEmail: "\(pseudonym.lowercased())@demo.invalid",
                    securityQuestion: questions[index % questions.count],
                    securityAnswerHash: appAnswerHash,
                    usState: location.0,
                    zipCode: location.1,
                    bio: bios[index % bios.count]
                ),
                cohort: cohort,
                now: joined,
                on: db
            )
            if let codeID = try await codes.consume(code: code, memberID: member.id, now: joined, on: db) {
                try await members.setSignUpCode(id: member.id, codeID: codeID, on: db)
            }
            try await members.recordSignIn(memberID: member.id, kind: .registered, origin: .commandLine, now: joined, on: db)
            try await members.markActive(id: member.id, at: now.addingTimeInterval(-Double(index % 12) * 86_400 - 3_600), on: db)
            if index % 13 == 12 { try await members.setStatus(id: member.id, .disabled, now: now, on: db) }
        }
        for note in ["demo: for the clinic on Tuesday", "demo: phone ends 4821", "demo: phone ends 0093"] {
            _ = try await codes.issue(
                note: note,
                lifetime: 30 * 86_400,
                createdBy: createdBy,
                randomBytes: dependencies.randomBytes,
                now: now,
                on: db
            )
        }
        let (_, revoked) = try await codes.issue(
            note: "demo: read to the wrong number",
            lifetime: 30 * 86_400,
            createdBy: createdBy,
            randomBytes: dependencies.randomBytes,
            now: now,
            on: db
        )
        _ = try await codes.revoke(id: revoked.id, by: createdBy, now: now, on: db)
        _ = try await codes.issue(
            note: "demo: never called back",
            lifetime: 30 * 86_400,
            createdBy: createdBy,
            randomBytes: dependencies.randomBytes,
            now: now.addingTimeInterval(-40 * 86_400),
            on: db
        )
    }
}
