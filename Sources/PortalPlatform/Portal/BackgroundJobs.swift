import Foundation
import ServiceLifecycle

/// Every 30 seconds reads program settings saved by other servers and gives the allocator's free pages
/// back to the system; every five minutes clears out expired sessions, every kind of app account's
/// expired tokens and old sign-in failures.
package struct Housekeeping: Service, CustomStringConvertible {
    package let portal: Portal
    package static let interval: Duration = ProgramSettingsStore.refreshInterval
    package static let sweepEvery = 10

    package init(portal: Portal) {
        self.portal = portal
    }

    package var description: String { "Housekeeping" }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            // The first round waits one interval, so it never runs before start-up's migration.
            var round = 0
            while (try? await Task.sleep(for: Self.interval)) != nil {
                round += 1
                MemoryArenas.returnFreePages()
                do {
                    try await portal.programSettings.refresh()
                    if round % Self.sweepEvery == 0 { try await sweep() }
                } catch {
                    portal.logger.warning("Housekeeping failed", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }

    package func sweep() async throws {
        try await portal.sessions.deleteExpired()
        let now = portal.now
        let kinds = portal.contributions.appAccounts
        try await portal.database.write { db in
            try await SignInThrottle().deleteExpired(now: now, on: db)
            for kind in kinds { try await kind.bearerTokens.deleteExpired(now: now, on: db) }
            try await DatabaseUploads.forgetUnfinished(now: now, on: db)
        }
    }
}

/// Runs the features' background jobs on this server, each every its own interval, skipping a round
/// while the job's program is switched off. A job that fails is logged and tried again next round.
package struct BackgroundJobs: Service, CustomStringConvertible {
    package let portal: Portal
    package let jobs: [BackgroundJob]

    package init(portal: Portal, jobs: [BackgroundJob]) {
        self.portal = portal
        self.jobs = jobs
    }

    package var description: String { "BackgroundJobs(\(jobs.map(\.name).joined(separator: ", ")))" }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for job in jobs {
                    group.addTask { await run(job) }
                }
            }
        }
    }

    private func run(_ job: BackgroundJob) async {
        // The first round waits one interval, so it never runs before start-up's migration.
        while (try? await Task.sleep(for: job.interval)) != nil {
            do {
                try await round(job)
            } catch {
                portal.logger.warning("\(job.name) failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// One round of `job`: it runs unless its program is switched off. True when it ran.
    @discardableResult
    package func round(_ job: BackgroundJob) async throws -> Bool {
        guard portal.programSettings.current.runs(job.program) else { return false }
        try await job.work()
        return true
    }
}
