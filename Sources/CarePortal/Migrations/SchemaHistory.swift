import Foundation
import Logging
import PortalPlatform

/// The schema is one numbered sequence across every feature: a feature's tables are created by the step
/// that introduced them, and later steps may change several features' tables at once (a version the
/// database raises, a column moved), so the steps stay together here in order rather than in the
/// features' folders. Numbers are never reused or reordered; a new step takes the next one.
enum SchemaHistory {
    static let migrations: [any Migration] = [
        CreateStaffAccounts(),
        CreateSessions(),
        CreateSignInThrottle(),
        CreateAuditLog(),
        CreateOutbox(),
        CreateSignUpCodes(),
        CreateMembers(),
        CreateStaffInvitations(),
        CreateInformationDesk(),
        CreateCatalogue(),
        CreatePatients(),
        AddPatientAdherenceVersion(),
        AddDeskRepliesVersion(),
        MoveDeskSearchIntoThreads(),
        AddDeskListVersion(),
        CreateEventsAndChat(),
        CreateHelpDirectory(),
        CreateNotifications(),
        CreateMemberCalendars(),
        CreatePointsLedger(),
        CreateAnalyticsAggregates(),
        CreateSurveys(),
        CompleteStaffAccounts(),
        CreatePharmacy(),
        CreateLearningContent(),
        CreateStudies(),
        AddListIndexes(),
        IndexStudyDays(),
        AddStudyClaimTokens(),
        AddAnalyticsLevels(),
        IndexAnalyticsReads(),
        IndexPointsBalances(),
        IndexLogsByPerson(),
        AddAnalyticsYears(),
        CountAuditNamesFromTheIndex(),
        CountNotificationReadersFromTheIndex(),
        IndexOpenInvitations(),
        IndexHelpEntriesByKind(),
        CountOpenFlagsPerPost(),
        IndexStaffByRoleAndName(),
        IndexListsForOldPageLinks(),
        KeepNotificationReach(),
        KeepSurveyResponseCounts(),
        IndexStudyFeedbackPages(),
        IndexHelpEntriesByWordAndState(),
        IndexCustomersByWord(),
        IndexSignUpCodesByWord(),
        IndexFlagQueueForSeeking(),
        IndexCustomersByBirthDate(),
        KeepPointsBalances(),
        IndexRetentionByCohort(),
        SealOutboxBodies(),
        AddPracticePhone(),
        TagModulesByMood(),
        KeepADirectoryPerProgram(),
        KeepVideosPerProgram(),
        ShareRewardsAcrossPrograms(),
        StartMemoryCare(),
        LetCareAccountsResetPasswords(),
        ShareTheFeedbackInbox(),
        ReadMemoriesWithoutJSON(),
        ShareRateLimitsAcrossServers(),
        ListHerLiveMemoriesInOrder(),
        KeepUploadsInTheDatabase(),
        AttachFilesToMemories(),
        FindHerTagsAndWordsInOrder()
    ]

    static var latestVersion: Int { migrations.map(\.version).max() ?? 0 }
}

extension Migrator {
    /// Brings a database up to CarePortal's latest schema.
    public init(database: Database, now: @escaping @Sendable () -> Date = Date.init, logger: Logger) {
        self.init(database: database, migrations: SchemaHistory.migrations, now: now, logger: logger)
    }
}
