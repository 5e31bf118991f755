import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct SecretsInLogsTests {
    /// ServiceLifecycle logs each service it starts, described, at `debug`: the services that hold the
    /// portal must not spell out its settings, which hold the database's and the mail server's passwords.
    @Test func servicesAreDescribedWithoutTheSettingsSecrets() async throws {
        try await TestPortal.run(.sqlite, configure: { $0.smtpURL = "smtp://careportal:sm7p-secret@127.0.0.1:2525" }) { portal in
            #expect(portal.portal.settings.smtpURL?.contains("sm7p-secret") == true)
            for service in [
                String(describing: Housekeeping(portal: portal.portal)),
                String(describing: BackgroundJobs(portal: portal.portal, jobs: portal.app.jobs))
            ] {
                #expect(!service.contains("sm7p-secret"), "\(service.prefix(80))")
                #expect(!service.contains(portal.portal.settings.databaseURL))
            }
        }
    }
}
