import Foundation
import PortalPlatform
import SQLKit

/// A medical professional's profile: the real name and date of birth from the invitation, which only
/// administrators see, and the avatar and bio members see beside the username.
public struct StaffProfile: Sendable, Equatable {
    public var firstName: String
    public var lastName: String
    public var dateOfBirth: CalendarDate
    public var avatar: Avatar
    /// Plain text as typed: escape it wherever it is shown, never treat it as markup.
    public var bio: String

    public var fullName: String { Self.fullName(firstName: firstName, lastName: lastName) }

    /// A profile's name as the portal shows it, from its two parts (read alone beside a list's accounts).
    static func fullName(firstName: String, lastName: String) -> String { "\(firstName) \(lastName)" }

    public init(firstName: String, lastName: String, dateOfBirth: CalendarDate, avatar: Avatar, bio: String) {
        self.firstName = firstName
        self.lastName = lastName
        self.dateOfBirth = dateOfBirth
        self.avatar = avatar
        self.bio = bio
    }

    /// Bios longer than this are refused.
    public static let bioMaximumLength = 500
}

/// A staff account with the real name from its profile, for the administrators' lists.
struct NamedAccount: Sendable {
    var account: StaffAccount
    /// Nil for an account made without an invitation (such as by `create-user`), which has no profile.
    var name: String?
}

/// The only place staff profiles are read and written.
struct StaffProfileRepository: Sendable {
    func create(_ profile: StaffProfile, accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.insert(into: "staff_profiles")
            .columns("account_id", "first_name", "last_name", "date_of_birth", "avatar", "bio")
            .values(
                SQLBind(accountID),
                SQLBind(profile.firstName),
                SQLBind(profile.lastName),
                SQLBind(profile.dateOfBirth.iso),
                SQLBind(profile.avatar.id),
                SQLBind(profile.bio)
            )
            .run()
    }

    /// A page of the accounts `query` finds, each with the name from its profile (nil for an account made
    /// without an invitation), read in one statement.
    func named(_ query: StaffListQuery, on db: any SQLDatabase) async throws -> PageOf<NamedAccount> {
        let names = AccountDetails(table: "staff_profiles", accountID: "account_id", columns: ["first_name", "last_name"])
        return try await StaffAccountRepository().list(query, beside: names, on: db) { account, row in
            guard let firstName = try row.decode(column: "first_name", as: String?.self) else { return NamedAccount(account: account, name: nil) }
            return NamedAccount(
                account: account,
                name: StaffProfile.fullName(firstName: firstName, lastName: try row.decode(column: "last_name", as: String.self))
            )
        }
    }

    /// The profile of a staff account; nil for accounts made without an invitation (such as by `create-user`).
    func find(accountID: Int64, on db: any SQLDatabase) async throws -> StaffProfile? {
        guard
            let row = try await db.select()
                .columns("first_name", "last_name", "date_of_birth", "avatar", "bio")
                .from("staff_profiles")
                .where("account_id", .equal, accountID)
                .first()
        else { return nil }
        guard let dateOfBirth = CalendarDate(iso: try row.decode(column: "date_of_birth", as: String.self)) else {
            throw StorageInconsistency(description: "staff profile \(accountID) has a malformed date of birth")
        }
        let avatarID = try row.decode(column: "avatar", as: String.self)
        return StaffProfile(
            firstName: try row.decode(column: "first_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            dateOfBirth: dateOfBirth,
            // An avatar no longer offered falls back to the default rather than failing the page.
            avatar: Avatar.any(avatarID) ?? .medicalDefault,
            bio: try row.decode(column: "bio", as: String.self)
        )
    }
}
