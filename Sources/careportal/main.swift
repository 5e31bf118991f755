import ArgumentParser
import CarePortal
import PortalPlatform
import Foundation

@main
struct CarePortalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "careportal",
        abstract: "CarePortal: the staff portal and member API for community-health programs.",
        subcommands: [
            Serve.self, Migrate.self, CreateUser.self, CreateSignUpCode.self, SeedDemo.self, Resanitize.self, RecountAnalytics.self, Backup.self,
            Restore.self, RotateSealingKey.self, MoveUploadsIntoDatabase.self
        ],
        defaultSubcommand: Serve.self
    )
}

/// Options every subcommand shares; each overrides the environment variable of the same meaning.
struct SettingsOptions: ParsableArguments {
    @Option(help: "Address to listen on (HOST).") var host: String?
    @Option(help: "Port to listen on (PORT).") var port: Int?
    @Option(help: "sqlite://PATH, postgres://USER:PASSWORD@HOST:PORT/DATABASE, or postgres://USER@/DATABASE?host=SOCKET_FOLDER (DATABASE_URL).")
    var databaseURL: String?
    @Option(help: "The address people use to reach the portal (BASE_URL).") var baseURL: String?
    @Option(help: "Folder for uploads and other files (DATA_DIR).") var dataDir: String?
    @Option(help: "Folder holding templates/ and static/ (RESOURCES_DIR).") var resourcesDir: String?
    @Option(help: "File holding the sealing key; unset on SQLite uses DATA_DIR/sealing.key (SEALING_KEY_FILE).") var sealingKeyFile: String?
    @Option(help: "SMTP server for outgoing mail (SMTP_URL).") var smtpURL: String?
    @Option(help: "The push gateway each push is POSTed to, https (PUSH_WEBHOOK_URL).") var pushWebhookURL: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical (LOG_LEVEL).") var logLevel: String?
    @Option(help: "Addresses and ranges that may read /metrics, comma-separated (METRICS_ALLOWED_FROM).") var metricsAllowedFrom: String?

    func settings() throws -> Settings {
        var overrides: [String: String] = [:]
        overrides["HOST"] = host
        overrides["PORT"] = port.map(String.init)
        overrides["DATABASE_URL"] = databaseURL
        overrides["BASE_URL"] = baseURL
        overrides["DATA_DIR"] = dataDir
        overrides["RESOURCES_DIR"] = resourcesDir
        overrides["SEALING_KEY_FILE"] = sealingKeyFile
        overrides["SMTP_URL"] = smtpURL
        overrides["PUSH_WEBHOOK_URL"] = pushWebhookURL
        overrides["LOG_LEVEL"] = logLevel
        overrides["METRICS_ALLOWED_FROM"] = metricsAllowedFrom
        do {
            return try Settings.load(environment: ProcessInfo.processInfo.environment, overrides: overrides)
        } catch let invalid as Settings.Invalid {
            throw ValidationError(invalid.description)
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Migrate the database, then serve the portal (the default).")
    @OptionGroup var options: SettingsOptions

    func run() async throws {
        try await Commands.serve(settings: try options.settings())
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Bring the database schema up to date.")
    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let applied = try await Commands.migrate(settings: try options.settings())
        print(applied.isEmpty ? "The database is up to date." : "Applied migrations \(applied.map(String.init).joined(separator: ", ")).")
    }
}

struct CreateUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-user",
        abstract: "Create a staff account. The password is read from standard input."
    )
    @OptionGroup var options: SettingsOptions
    @Option(help: "administrator, medical_professional, physician, pharmacist or researcher.") var role: String
    @Option(help: "Up to 21 letters, numbers, full stops, hyphens or underscores.") var username: String
    @Option(help: "Email address (optional).") var email: String?

    func run() async throws {
        guard let role = StaffRole(rawValue: role) else {
            throw ValidationError("--role must be administrator, medical_professional, physician, pharmacist or researcher")
        }
        FileHandle.standardError.write(Data("Password for \(username) (read from standard input): ".utf8))
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("No password was given on standard input")
        }
        do {
            let id = try await Commands.createUser(settings: try options.settings(), role: role, username: username, email: email, password: line)
            print("\nCreated \(role.title.lowercased()) \(username) (account \(id)).")
        } catch let failed as Commands.CreateUserFailed {
            throw ValidationError(failed.description)
        }
    }
}

struct CreateSignUpCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-sign-up-code",
        abstract: "Make a sign-up code for a member, on behalf of an administrator. The code is printed once."
    )
    @OptionGroup var options: SettingsOptions
    @Option(help: "The administrator's username, recorded as the code's maker.") var by: String
    @Option(help: "A private note to find the code again (optional).") var note: String = ""

    func run() async throws {
        do {
            let (code, expires) = try await Commands.createSignUpCode(settings: try options.settings(), administrator: by, note: note)
            FileHandle.standardError.write(Data("Sign-up code (shown only this once), usable until \(expires):\n".utf8))
            print(code)
        } catch let failed as Commands.CreateUserFailed {
            throw ValidationError(failed.description)
        }
    }
}

struct SeedDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo",
        abstract: "Fill an empty database with clearly marked demo accounts and content."
    )
    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let credentials = try await Commands.seedDemo(settings: try options.settings())
        print("Demo accounts (shown only this once):")
        for credential in credentials {
            print(
                "  \(credential.title.padding(toLength: 28, withPad: " ", startingAt: 0)) \(credential.username)  password: \(credential.password)  (signs in at \(credential.signInPath))"
            )
        }
        print("Two medical professionals and a physician are invited. Their emails rest sealed in the outbox, links masked; without a mail server,")
        print(
            "whoever invites someone (or adds a patient, or enrols a participant by email) is shown the link or claim token once, on the page that made it."
        )
        print("The physician has \(DemoSeeder.demoPatientCount) patients with two months of logged doses and exercises, and one unfinished draft.")
    }
}

struct Resanitize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render every stored question and reply again from its source with the current SafeHTML policy."
    )
    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let report = try await Commands.resanitize(settings: try options.settings())
        print("Examined \(report.examined) stored bodies; \(report.changed) rendered differently under the current policy and were updated.")
    }
}

struct RecountAnalytics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recount-analytics",
        abstract: "Count every recorded event into the analytics' daily counts again, on the program's current time zone."
    )
    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let counts = try await Commands.recountAnalytics(settings: try options.settings())
        print("Counted every event again: \(counts) rows of daily counts.")
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database, while the servers run, and DATA_DIR into one new archive (SQLite's online backup, or pg_dump on PostgreSQL).",
        discussion:
            "The archive holds DATA_DIR/sealing.key when the key is kept there: keep it as secret as the database (README.md, \"Operations\")."
    )
    @OptionGroup var options: SettingsOptions
    @Argument(help: "The archive to write, outside DATA_DIR; it must not exist yet.") var path: String

    func run() async throws {
        let report = try await Commands.backup(settings: try options.settings(), to: path)
        print(
            """
            Backed up the database (schema version \(report.manifest.schemaVersion)) and \(report.fileCount) files of DATA_DIR, \
            \(report.totalSize) bytes in all, to \(report.archivePath) at \(report.manifest.createdAt).
            Keep the archive as secret as the database: it holds every record, and DATA_DIR/sealing.key if the key is kept there.
            """
        )
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Put a backup archive back: the database where DATABASE_URL points (a new SQLite file, or an empty PostgreSQL database) and the files into an empty DATA_DIR.",
        discussion:
            "Every file is checked against the archive's checksums before anything is written; an existing database or a DATA_DIR with anything in it is never replaced."
    )
    @OptionGroup var options: SettingsOptions
    @Argument(help: "The archive careportal backup wrote.") var path: String

    func run() async throws {
        let report = try await Commands.restore(settings: try options.settings(), from: path)
        print(
            """
            Restored the database (schema version \(report.manifest.schemaVersion), backed up at \(report.manifest.createdAt)) \
            and \(report.fileCount) files from \(report.archivePath); every checksum matched. Start the server to use it.
            """
        )
    }
}

struct RotateSealingKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-sealing-key",
        abstract: "Seal every sealed value (outbox bodies, two-factor secrets) again under a new sealing key, in one transaction.",
        discussion: """
            Stop every server first. With the embedded default, DATA_DIR/sealing.key is replaced; with SEALING_KEY_FILE or SEALING_KEY, \
            the new key is written to --new-key-file and every server must then be given it (README.md, "The sealing key").
            """
    )
    @OptionGroup var options: SettingsOptions
    @Option(help: "Where to write the new key when the key is given by SEALING_KEY_FILE or SEALING_KEY; it must not exist yet.") var newKeyFile:
        String?

    func run() async throws {
        do {
            let rotated = try await Commands.rotateSealingKey(settings: try options.settings(), newKeyFile: newKeyFile)
            print(
                "Sealed \(rotated.resealed) values again under key \(rotated.newKeyID) (was \(rotated.formerKeyID)); the new key is in \(rotated.newKeyPath)."
            )
            if !rotated.replacedDefault {
                print(
                    "Give every server SEALING_KEY_FILE=\(rotated.newKeyPath) (or its contents as SEALING_KEY) before starting it; the former key is no longer needed."
                )
            }
        } catch let problem as SealingKeyProblem {
            throw ValidationError(problem.description)
        }
    }
}

struct MoveUploadsIntoDatabase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move-uploads-into-database",
        abstract:
            "On PostgreSQL, move the uploaded files kept under DATA_DIR into the database, each checked by its SHA-256 before its file is removed.",
        discussion:
            "Safe to run while the servers run, and again: a file already moved is not moved twice. Files that cannot be moved stay where they are and are listed."
    )
    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let report = try await Commands.moveUploadsIntoDatabase(settings: try options.settings())
        print("Moved \(report.moved) files (\(report.bytes) bytes) into the database; \(report.alreadyThere) were there already.")
        if !report.left.isEmpty {
            print("Left under DATA_DIR:")
            for line in report.left { print("  \(line)") }
            throw ExitCode(1)
        }
    }
}
