import Foundation
import PortalPlatform

/// The JSON the member app sends and receives; field names become snake_case on the wire.
/// Every shape here is described in `api/openapi.json`.
enum MemberAPI {
    struct AvatarBody: Encodable, Sendable {
        let id: String
        let name: String
        let url: String
        let medical: Bool

        init(_ avatar: Avatar) {
            id = avatar.id
            name = avatar.name
            url = avatar.path
            medical = avatar.isMedical
        }
    }

    struct CohortBody: Encodable, Sendable {
        let id: Int64
        let name: String
        let dueMonth: String

        init(_ cohort: Cohort) {
            id = cohort.id
            name = cohort.name
            dueMonth = cohort.dueMonth
        }
    }

    struct Rules: Encodable, Sendable {
        let pseudonymMaxLength = MemberRules.pseudonymMaximumLength
        let pseudonymCharacters = "letters, numbers, full stops (.), hyphens (-) and underscores (_)"
        let passwordMinLength = PasswordPolicy.minimumLength
        let passwordSymbols = "!@#$%^&*"
        let bioMaxLength = MemberRules.bioMaximumLength
        let signUpCodeLength = SignUpCode.length
    }

    /// What the app needs before anyone signs in: the program, its avatars, questions and rules.
    struct Program: Encodable, Sendable {
        let name: String
        let deletionPhone: String?
        let avatars: [AvatarBody]
        let defaultAvatar: String
        let securityQuestions: [String]
        let rules = Rules()

        init(_ settings: ProgramSettings) {
            name = settings.programName
            deletionPhone = settings.deletionPhone.isEmpty ? nil : settings.deletionPhone
            avatars = settings.memberAvatars.map(AvatarBody.init)
            defaultAvatar = settings.defaultMemberAvatar.id
            securityQuestions = settings.securityQuestions
        }
    }

    struct Deletion: Encodable, Sendable {
        let phone: String?
        let message: String
    }

    /// A member's own profile, as only she sees it.
    struct OwnProfile: Encodable, Sendable {
        let id: Int64
        let pseudonym: String
        let avatar: AvatarBody
        let dueDate: String
        let cohort: CohortBody
        let recoveryEmail: String
        let securityQuestion: String
        let state: String?
        let zipCode: String?
        let bio: String
        let joinedAt: Date
        let deletion: Deletion

        init(_ member: Member, settings: ProgramSettings) {
            id = member.id
            pseudonym = member.pseudonym
            avatar = AvatarBody(member.avatar)
            dueDate = member.dueDate.iso
            cohort = CohortBody(member.cohort)
            recoveryEmail = member.recoveryEmail
            securityQuestion = member.securityQuestion
            state = member.usState
            zipCode = member.zipCode
            bio = member.bio
            joinedAt = member.createdAt
            let phone = settings.deletionPhone.isEmpty ? nil : settings.deletionPhone
            deletion = Deletion(
                phone: phone,
                message: phone.map { "To have your account and everything in it deleted, call \($0)." }
                    ?? "To have your account and everything in it deleted, contact the program team."
            )
        }
    }

    /// What other members see of a member.
    struct PublicProfile: Encodable, Sendable {
        let id: Int64
        let pseudonym: String
        let avatar: AvatarBody
        let bio: String
        let cohort: CohortBody

        init(_ member: Member) {
            id = member.id
            pseudonym = member.pseudonym
            avatar = AvatarBody(member.avatar)
            bio = member.bio
            cohort = CohortBody(member.cohort)
        }
    }

    /// What members see of a medical professional or administrator.
    struct StaffPublicProfile: Encodable, Sendable {
        let id: Int64
        let displayName: String
        let avatar: AvatarBody
        let bio: String
        let role: String

        init(account: StaffAccount, profile: StaffProfile?) {
            id = account.id
            displayName = account.username
            avatar = AvatarBody(profile?.avatar ?? Avatar.medicalDefault)
            bio = profile?.bio ?? ""
            role = account.role.rawValue
        }
    }

    /// A signed-in app: the token to send as `Authorization: Bearer …` and the member's profile.
    struct Session: Encodable, Sendable {
        let token: String
        let tokenType = "Bearer"
        let expiresAt: Date
        let member: OwnProfile
    }

    struct Registration: Decodable, Sendable {
        var signUpCode: String?
        var pseudonym: String?
        var password: String?
        var avatar: String?
        var dueDate: String?
        var recoveryEmail: String?
        var securityQuestion: String?
        var securityAnswer: String?
        var state: String?
        var zipCode: String?
        var bio: String?
    }

    struct Recovery: Decodable, Sendable {
        var recoveryEmail: String?
        var securityAnswer: String?
        var newPassword: String?
    }

    /// Absent fields stay as they are; an empty string clears state, ZIP code or bio.
    struct ProfileChange: Decodable, Sendable {
        var avatar: String?
        var recoveryEmail: String?
        var state: String?
        var zipCode: String?
        var bio: String?
    }

    struct PasswordChange: Decodable, Sendable {
        var currentPassword: String?
        var newPassword: String?
    }
}
