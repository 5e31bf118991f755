import PortalPlatform

/// The first administrator's details, as the setup page sends them.
struct SetupForm: Decodable, Sendable {
    var username: String?
    var email: String?
    var password: String?
    var password_confirmation: String?

    var typedUsername: String { username?.trimmed ?? "" }
    var typedEmail: String { email?.trimmed ?? "" }
    var typedPassword: String { password ?? "" }

    /// What is wrong, by field; empty when the account can be made.
    func problems(policy: PasswordPolicy) -> FormErrors {
        var errors = FormErrors()
        if let problem = FieldRules.usernameProblem(typedUsername) { errors.add("username", problem) }
        if let problem = FieldRules.emailProblem(typedEmail) { errors.add("email", problem) }
        if let problem = policy.problem(with: typedPassword, username: typedUsername) { errors.add("password", problem) }
        if errors["password"] == nil, typedPassword != password_confirmation {
            errors.add("password_confirmation", "The passwords do not match")
        }
        return errors
    }
}

struct SignInForm: Decodable, Sendable {
    var username: String?
    var password: String?
    var next: String?

    var typedUsername: String { username?.trimmed ?? "" }
    var typedPassword: String { password ?? "" }

    /// The fields left empty.
    func problems() -> FormErrors {
        var errors = FormErrors()
        if typedUsername.isEmpty { errors.add("username", "Enter your username") }
        if typedPassword.isEmpty { errors.add("password", "Enter your password") }
        return errors
    }
}

/// Why a sign-in with a username and password was turned away: shown beside the username, logged
/// with `detail`.
struct SignInRefusal: Error, Sendable {
    let message: String
    let detail: String
    var account: StaffAccount?
    /// A reserved try stays a failure of the throttle when true, and is let go otherwise.
    let countsAsFailure: Bool

    static let paused = SignInRefusal(
        message: SignInController.paused,
        detail: "paused after repeated failures",
        countsAsFailure: false
    )

    static let unknownUsername = SignInRefusal(message: SignInController.wrongCredentials, detail: "unknown username", countsAsFailure: true)

    static func wrongPassword(_ account: StaffAccount) -> SignInRefusal {
        SignInRefusal(message: SignInController.wrongCredentials, detail: "wrong password", account: account, countsAsFailure: true)
    }

    /// Nil for an active account, which may sign in.
    static func status(of account: StaffAccount) -> SignInRefusal? {
        switch account.status {
        case .active:
            nil
        case .disabled:
            SignInRefusal(
                message: "This account has been disabled. If you think this is a mistake, ask an administrator.",
                detail: "account disabled",
                account: account,
                countsAsFailure: false
            )
        case .awaitingApproval:
            SignInRefusal(
                message: "Your registration is waiting for an administrator to approve it. You will get an email when it is approved.",
                detail: "awaiting approval",
                account: account,
                countsAsFailure: false
            )
        }
    }
}

struct ChangePasswordForm: Decodable, Sendable {
    var current_password: String?
    var new_password: String?
    var new_password_confirmation: String?

    var typedCurrent: String { current_password ?? "" }
    var typedNew: String { new_password ?? "" }

    /// What is wrong, by field; `currentIsWrong` says the current password typed does not match hers.
    func problems(currentIsWrong: Bool, policy: PasswordPolicy, username: String) -> FormErrors {
        var errors = FormErrors()
        if typedCurrent.isEmpty {
            errors.add("current_password", "Enter your current password")
        } else if currentIsWrong {
            errors.add("current_password", "Your current password is not right")
        }
        if let problem = policy.problem(with: typedNew, username: username) {
            errors.add("new_password", problem.replacingOccurrences(of: "Enter a password", with: "Enter a new password"))
        } else if typedNew == typedCurrent {
            errors.add("new_password", "The new password must be different from the current one")
        }
        if errors["new_password"] == nil, typedNew != new_password_confirmation {
            errors.add("new_password_confirmation", "The new passwords do not match")
        }
        return errors
    }
}
