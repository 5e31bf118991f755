import Hummingbird
import PortalPlatform

/// Every page and action of the portal, grouped by area: each address is written once, in `route`, and
/// both the router's pattern and every link are made from it, so the two cannot drift apart.
/// `RouteNamingTests` checks that every registered route is one of these cases.
enum SiteURL: Sendable, Equatable {
    // MARK: Signing in, accounts and operations
    case home
    case health
    case setup
    case signIn
    case signOut
    case changePassword
    case accountPractice
    case registerPhysician
    case registrationReceived
    case invitation
    case forgottenPassword
    case resetPassword
    case signInCode
    case signInSecondFactorSetup
    case twoFactor
    case twoFactorSetUp
    case twoFactorConfirm
    case twoFactorTurnOff
    case metrics

    // MARK: Staff administration
    case staff
    case staffAccount(Int64)
    case staffDisable(Int64)
    case staffEnable(Int64)
    case staffApprove(Int64)
    case auditLog
    case auditLogExport
    case outbox
    case outboxMessage(Int64)
    case outboxRetry(Int64)
    case signUpCodes
    case newSignUpCode
    case signUpCodeRevoke(Int64)
    case medicalProfessionals
    case inviteMedicalProfessional
    case invitationResend(Int64)
    case invitationRevoke(Int64)
    case twoFactorPolicy
    case staffInvite
    case staffSendPasswordReset(Int64)
    case staffDelete(Int64)
    case staffResetSecondFactor(Int64)

    // MARK: The perinatal community: members, sign-up codes, settings and rewards
    case members
    case rewards
    case rewardRetire(Int64)
    case rewardStock(Int64)
    case rewardRedemptions
    case rewardRedemptionSent(Int64)
    case member(Int64)
    case memberDisable(Int64)
    case memberEnable(Int64)
    case memberDelete(Int64)
    case cohorts
    case programSettings

    // MARK: The information desk
    case desk
    case deskThread(Int64)
    case deskThreadReplies(Int64)
    case deskThreadClearAccepted(Int64)
    case deskThreadModerate(Int64)
    case deskThreadRestore(Int64)
    case deskThreadKeep(Int64)
    case deskThreadReveal(Int64)
    case deskReplyAccept(Int64)
    case deskReplyEdit(Int64)
    case deskReplyModerate(Int64)
    case deskReplyRestore(Int64)
    case deskReplyKeep(Int64)
    case deskFlags
    case deskModerationLog
    case deskModerationLogExport
    case deskEmailSettings

    // MARK: Chat
    case chat
    case chatRoom(Int64)
    case chatRoomMessages(Int64)
    case chatMessageRemove(Int64)
    case chatMemberMute(Int64)
    case chatMemberUnmute(Int64)
    case chatReports
    case chatReportKeep(Int64)
    case chatSettings

    // MARK: Notifications and broadcasts
    case broadcasts
    case newBroadcast
    case broadcast(Int64)
    case broadcastCancel(Int64)

    // MARK: The help directory
    case helpDirectory
    case newHelpResource
    case editHelpResource(Int64)
    case deleteHelpResource(Int64)

    // MARK: Learning
    case learning
    case babyWeek(Int)
    case pointsRules
    case learningModules
    case newLearningModule
    case learningModule(Int64)
    case newQuizQuestion(Int64)
    case quizQuestion(Int64)
    case deleteQuizQuestion(Int64)
    case learningVideos
    case newLearningVideo
    case learningVideo(Int64)
    case learningVideoFile(Int64)

    // MARK: Surveys
    case surveys
    case newSurvey
    case survey(Int64)
    case editSurvey(Int64)
    case newSurveyQuestion(Int64)
    case surveyPublish(Int64)
    case surveyClose(Int64)
    case surveyBackToDraft(Int64)
    case surveyResults(Int64)
    case surveyResultsCSV(Int64)
    case surveyQuestion(Int64)
    case surveyQuestionMove(Int64)
    case surveyQuestionRemove(Int64)
    case surveyTextAnswers(Int64)

    // MARK: Research analytics
    case analytics
    case analyticsTopic(AnalyticsReports.Topic)
    case analyticsDownload
    case analyticsExport

    // MARK: The member app's API
    case apiRewards
    case apiRewardRedemptions
    case apiOpenAPI
    case apiProgram
    case apiRegistrations
    case apiSessions
    case apiCurrentSession
    case apiAccountRecovery
    case apiMe
    case apiMemberRecordOpenings
    case apiMyPassword
    case apiMemberProfile(Int64)
    case apiStaffProfile(Int64)
    case apiThreads
    case apiThread(Int64)
    case apiThreadReplies(Int64)
    case apiThreadFlags(Int64)
    case apiReplyFlags(Int64)
    case apiNotifications
    case apiChat
    case apiChatMessages
    case apiChatMessageReports(Int64)
    case apiChatLive
    case apiMoods
    case apiNotificationsUnreadCount
    case apiNotificationRead(Int64)
    case apiNotificationsReadAll
    case apiNotificationPreferences
    case apiPushTokens
    case apiPushToken(String)
    case apiResources
    case apiPoints
    case apiBabyWeek
    case apiCalendarEvents
    case apiCalendarEvent(Int64)
    case apiLearning
    case apiLearningModule(Int64)
    case apiLearningModuleAttempts(Int64)
    case apiLearningVideoWatched(Int64)
    case apiLearningVideoFile(Int64)
    case apiEvents
    case apiSurveys
    case apiSurvey(Int64)
    case apiSurveyResponses(Int64)

    // MARK: The member's web app
    case appMemberHome
    case appMemberRegister
    case appMemberRecovery
    case appMemberHelp
    case appMemberRewards
    case appMemberReward(Int64)
    case appLearning
    case appLearningModule(Int64)
    case appLearningVideo(Int64)
    case appLearningVideoWatched(Int64)
    case appLearningVideoFile(Int64)
    case appMood
    case appChat
    case appChatMessages
    case appChatMessageReport(Int64)
    case appSurveys
    case appSurvey(Int64)
    case appCalendar
    case appCalendarNew
    case appCalendarEvent(Int64)
    case appCalendarEventDelete(Int64)
    case appMemberProfile
    case appMemberPassword
    case appMemberNotifications
    case appMemberNotificationsReadAll
    case appMemberNotificationChoices
    case appMemberRecordOpenings
    case appDesk
    case appDeskAsk
    case appDeskThread(Int64)
    case appDeskReplies(Int64)
    case appDeskThreadFlag(Int64)
    case appDeskReplyFlag(Int64)

    // MARK: The physicians' practice
    case catalogue
    case newCatalogueMedication
    case editCatalogueMedication(Int64)
    case newCatalogueExercise
    case editCatalogueExercise(Int64)
    case catalogueIllustration(Int64)
    case newCatalogueFrequency
    case editCatalogueFrequency(Int64)
    case newCatalogueAmount
    case editCatalogueAmount(Int64)
    case removeCatalogueMedication(Int64)
    case removeCatalogueExercise(Int64)
    case removeCatalogueFrequency(Int64)
    case removeCatalogueAmount(Int64)
    case patients
    case newPatient
    case patientDraftContact(Int64)
    case patientDraftMedications(Int64)
    case patientDraftExercises(Int64)
    case patientDraftCancel(Int64)
    case patient(Int64)
    case editPatientContact(Int64)
    case editPatientMedications(Int64)
    case editPatientExercises(Int64)
    case patientHistory(Int64)
    case patientRemove(Int64)
    case patientReassign(Int64)
    case patientClaimResend(Int64)
    case patientClaimRevoke(Int64)
    case patientReport(Int64)
    case patientReportCSV(Int64)
    case patientReportPDF(Int64)

    // MARK: The patient app's API
    case apiPatientClaimCheck
    case apiPatientClaim
    case apiPatientSessions
    case apiPatientCurrentSession
    case apiPatientMe
    case apiPatientRecordOpenings
    case apiPatientRegimen
    case apiPatientIllustration(Int64)
    case apiPatientSchedule
    case apiPatientScheduleEntry(day: String, entry: String)
    case apiPatientStatistics
    case apiPatientReminders

    // MARK: The patient's web app
    case appPatientDay
    case appPatientEntry(day: String, entry: String)
    case appPatientProgress
    case appPatientReminders
    case appPatientDoctor
    case appPatientClaim
    case appPatientClaimAccount
    case appPatientRecordOpenings

    // MARK: The research study
    case studies
    case studyParticipants
    case newStudyParticipant
    case studyParticipant(Int64)
    case studyParticipantWithdraw(Int64)
    case studyParticipantDelete(Int64)
    case studyTodos
    case newStudyTodo
    case studyTodo(Int64)
    case studyFeedback
    case studyFeedbackHandled(Int64)
    case studyContact
    case studyLocations
    case newStudyLocation
    case editStudyLocation(Int64)
    case deleteStudyLocation(Int64)
    case studyVideos
    case newStudyVideo
    case studyVideo(Int64)
    case studyVideoFile(Int64)
    case studyExports
    case studyExport(StudyExport)
    case studyParticipantClaimResend(Int64)
    case studyParticipantClaimRevoke(Int64)

    // MARK: The study app's API
    case apiStudyLocations
    case apiStudyVideos
    case apiStudyVideoFile(Int64)
    case apiStudySessions
    case apiStudyCurrentSession
    case apiStudyPassword
    case apiStudyStatistics
    case apiStudyTodos
    case apiStudyTodo(Int64)
    case apiStudyOpens
    case apiStudyFeedback
    case apiStudyContact
    case apiStudyRecordOpenings
    case apiStudyClaim

    // MARK: The participant's web app
    case appStudyToday
    case appStudyTodo(Int64)
    case appStudyProgress
    case appStudyFeedback
    case appStudyContact
    case appStudyLocations
    case appStudyVideos
    case appStudyVideo(Int64)
    case appStudyVideoFile(Int64)
    case appStudyPassword
    case appStudyClaim
    case appStudyRecordOpenings

    // MARK: The pharmacy
    case pharmacy
    case pharmacyRefill(Int64)
    case pharmacyRefillStatus(Int64)
    case pharmacyCustomers
    case pharmacyCustomer(Int64)
    case pharmacyCustomerEdit(Int64)
    case pharmacyCustomerDisable(Int64)
    case pharmacyCustomerEnable(Int64)
    case pharmacyCustomerPrescriptions(Int64)
    case pharmacyPrescriptionRemove(Int64)
    case pharmacyDeals
    case newPharmacyDeal
    case editPharmacyDeal(Int64)
    case deletePharmacyDeal(Int64)
    case pharmacyRewards
    case pharmacyRewardRetire(Int64)
    case pharmacyVoucherCheck
    case pharmacyBeacons
    case pharmacyBeaconRemove(Int64)
    case pharmacyResetPassword
    case pharmacyDealPicture(Int64)

    // MARK: The pharmacy customers' API
    case apiPharmacyRegistrations
    case apiPharmacySessions
    case apiPharmacyCurrentSession
    case apiPharmacyPasswordResets
    case apiPharmacyPasswordResetCompletion
    case apiPharmacyMe
    case apiPharmacyRecordOpenings
    case apiPharmacyHistory
    case apiPharmacyAddress
    case apiPharmacyHome
    case apiPharmacyStepUp
    case apiPharmacyPrescriptions
    case apiPharmacyRefills
    case apiPharmacyDeals
    case apiPharmacyBeacons
    case apiPharmacyVisits
    case apiPharmacyRewards
    case apiPharmacyVouchers
    case apiPharmacyVoucherActivation(Int64)
    case apiPharmacyNotifications
    case apiPharmacyNotificationRead(Int64)
    case apiPharmacyNotificationsReadAll
    case apiPharmacyDealPicture(Int64)
    case apiPharmacyNotificationPreferences
    case apiPharmacyPushTokens
    case apiPharmacyPushToken(String)

    // MARK: The pharmacy customer's web app
    case appPharmacyRecordOpenings
    case appPharmacyHome
    case appPharmacyRegister
    case appPharmacyForgottenPassword
    case appPharmacyDeals
    case appPharmacyDealPicture(Int64)
    case appPharmacyRewards
    case appPharmacyReward(Int64)
    case appPharmacyVouchers
    case appPharmacyHistory
    case appPharmacyVoucher(Int64)
    case appPharmacyVoucherActivation(Int64)
    case appPharmacyPrescriptions
    case appPharmacyPrescriptionsUnlock
    case appPharmacyRefill(Int64)
    case appPharmacyAddress
    case appPharmacyNotifications
    case appPharmacyNotificationsReadAll
    case appPharmacyNotificationChoices

    // MARK: Every kind's web app
    case app
    /// The platform's sign-in and sign-out pages of each kind of app account (`AppAccountKind.signInPagePath`).
    case appSignIn(AppAccountKind)
    case appSignOut(AppAccountKind)
    case appManifest

    // MARK: Memory care
    /// The memory-care program's pages and API.
    case care(CareURL)

    /// The address, written once for the link and the router's pattern.
    var route: RoutePath {
        switch self {
        // Signing in, accounts and operations
        case .home: "\(PlatformPath.home)"
        case .health: "/health"
        case .setup: "/setup"
        case .signIn: "\(PlatformPath.signIn)"
        case .signOut: "\(PlatformPath.signOut)"
        case .changePassword: "/account/password"
        case .accountPractice: "/account/practice"
        case .registerPhysician: "/register"
        case .registrationReceived: "/register/received"
        case .invitation: "/invitation"
        case .forgottenPassword: "/sign-in/forgotten-password"
        case .resetPassword: "/sign-in/reset-password"
        case .signInCode: "/sign-in/code"
        case .signInSecondFactorSetup: "/sign-in/two-factor"
        case .twoFactor: "/account/two-factor"
        case .twoFactorSetUp: "/account/two-factor/set-up"
        case .twoFactorConfirm: "/account/two-factor/confirm"
        case .twoFactorTurnOff: "/account/two-factor/turn-off"
        case .metrics: "/metrics"
        // Staff administration
        case .staff: "/staff"
        case .staffAccount(let id): "/staff/\(id)"
        case .staffDisable(let id): "/staff/\(id)/disable"
        case .staffEnable(let id): "/staff/\(id)/enable"
        case .staffApprove(let id): "/staff/\(id)/approve"
        case .auditLog: "/audit"
        case .auditLogExport: "/audit/export.csv"
        case .outbox: "/outbox"
        case .outboxMessage(let id): "/outbox/\(id)"
        case .outboxRetry(let id): "/outbox/\(id)/retry"
        case .signUpCodes: "/sign-up-codes"
        case .newSignUpCode: "/sign-up-codes/new"
        case .signUpCodeRevoke(let id): "/sign-up-codes/\(id)/revoke"
        case .medicalProfessionals: "/medical-professionals"
        case .inviteMedicalProfessional: "/medical-professionals/invite"
        case .invitationResend(let id): "/medical-professionals/invitations/\(id)/resend"
        case .invitationRevoke(let id): "/medical-professionals/invitations/\(id)/revoke"
        case .twoFactorPolicy: "/staff/two-factor"
        case .staffInvite: "/staff/invite"
        case .staffSendPasswordReset(let id): "/staff/\(id)/password-reset"
        case .staffDelete(let id): "/staff/\(id)/delete"
        case .staffResetSecondFactor(let id): "/staff/\(id)/two-factor/reset"
        // The perinatal community: members, sign-up codes, settings and rewards
        case .members: "/members"
        case .rewards: "/rewards"
        case .rewardRetire(let id): "/rewards/\(id)/retire"
        case .rewardStock(let id): "/rewards/\(id)/stock"
        case .rewardRedemptions: "/rewards/redemptions"
        case .rewardRedemptionSent(let id): "/rewards/redemptions/\(id)/sent"
        case .member(let id): "/members/\(id)"
        case .memberDisable(let id): "/members/\(id)/disable"
        case .memberEnable(let id): "/members/\(id)/enable"
        case .memberDelete(let id): "/members/\(id)/delete"
        case .cohorts: "/cohorts"
        case .programSettings: "/program-settings"
        // The information desk
        case .desk: "/desk"
        case .deskThread(let id): "/desk/threads/\(id)"
        case .deskThreadReplies(let id): "/desk/threads/\(id)/replies"
        case .deskThreadClearAccepted(let id): "/desk/threads/\(id)/accepted-answer/clear"
        case .deskThreadModerate(let id): "/desk/threads/\(id)/moderate"
        case .deskThreadRestore(let id): "/desk/threads/\(id)/restore"
        case .deskThreadKeep(let id): "/desk/threads/\(id)/keep"
        case .deskThreadReveal(let id): "/desk/threads/\(id)/reveal-author"
        case .deskReplyAccept(let id): "/desk/replies/\(id)/accept"
        case .deskReplyEdit(let id): "/desk/replies/\(id)/edit"
        case .deskReplyModerate(let id): "/desk/replies/\(id)/moderate"
        case .deskReplyRestore(let id): "/desk/replies/\(id)/restore"
        case .deskReplyKeep(let id): "/desk/replies/\(id)/keep"
        case .deskFlags: "/desk/flags"
        case .deskModerationLog: "/desk/moderation-log"
        case .deskModerationLogExport: "/desk/moderation-log/export.csv"
        case .deskEmailSettings: "/desk/email-settings"
        // Chat
        case .chat: "/chat"
        case .chatRoom(let id): "/chat/rooms/\(id)"
        case .chatRoomMessages(let id): "/chat/rooms/\(id)/messages"
        case .chatMessageRemove(let id): "/chat/messages/\(id)/remove"
        case .chatMemberMute(let id): "/chat/members/\(id)/mute"
        case .chatMemberUnmute(let id): "/chat/members/\(id)/unmute"
        case .chatReports: "/chat/reports"
        case .chatReportKeep(let id): "/chat/reports/\(id)/keep"
        case .chatSettings: "/chat/settings"
        // Notifications and broadcasts
        case .broadcasts: "/notifications"
        case .newBroadcast: "/notifications/broadcasts/new"
        case .broadcast(let id): "/notifications/broadcasts/\(id)"
        case .broadcastCancel(let id): "/notifications/broadcasts/\(id)/cancel"
        // The help directory
        case .helpDirectory: "/resources"
        case .newHelpResource: "/resources/new"
        case .editHelpResource(let id): "/resources/\(id)/edit"
        case .deleteHelpResource(let id): "/resources/\(id)/delete"
        // Learning
        case .learning: "/learning"
        case .babyWeek(let week): "/learning/baby-weeks/\(week, as: "week")"
        case .pointsRules: "/learning/points"
        case .learningModules: "/learning/modules"
        case .newLearningModule: "/learning/modules/new"
        case .learningModule(let id): "/learning/modules/\(id)"
        case .newQuizQuestion(let id): "/learning/modules/\(id)/questions/new"
        case .quizQuestion(let id): "/learning/questions/\(id)"
        case .deleteQuizQuestion(let id): "/learning/questions/\(id)/delete"
        case .learningVideos: "/learning/videos"
        case .newLearningVideo: "/learning/videos/new"
        case .learningVideo(let id): "/learning/videos/\(id)"
        case .learningVideoFile(let id): "/learning/videos/\(id)/file"
        // Surveys
        case .surveys: "/surveys"
        case .newSurvey: "/surveys/new"
        case .survey(let id): "/surveys/\(id)"
        case .editSurvey(let id): "/surveys/\(id)/edit"
        case .newSurveyQuestion(let id): "/surveys/\(id)/questions"
        case .surveyPublish(let id): "/surveys/\(id)/publish"
        case .surveyClose(let id): "/surveys/\(id)/close"
        case .surveyBackToDraft(let id): "/surveys/\(id)/draft"
        case .surveyResults(let id): "/surveys/\(id)/results"
        case .surveyResultsCSV(let id): "/surveys/\(id)/results.csv"
        case .surveyQuestion(let id): "/survey-questions/\(id)"
        case .surveyQuestionMove(let id): "/survey-questions/\(id)/move"
        case .surveyQuestionRemove(let id): "/survey-questions/\(id)/remove"
        case .surveyTextAnswers(let id): "/survey-questions/\(id)/answers"
        // Research analytics
        case .analytics: "/analytics"
        case .analyticsTopic(let topic): "/analytics/\(topic.rawValue)"
        case .analyticsDownload: "/analytics/download"
        case .analyticsExport: "/analytics/export"
        // The member app's API
        case .apiRewards: "/api/v1/rewards"
        case .apiRewardRedemptions: "/api/v1/rewards/redemptions"
        case .apiOpenAPI: "/api/v1/openapi.json"
        case .apiProgram: "/api/v1/program"
        case .apiRegistrations: "/api/v1/registrations"
        case .apiSessions: "\(AppAccountKind.member.sessionsPath)"
        case .apiCurrentSession: "\(AppAccountKind.member.currentSessionPath)"
        case .apiAccountRecovery: "/api/v1/account-recovery"
        case .apiMe: "/api/v1/me"
        case .apiMemberRecordOpenings: "/api/v1/me/record-openings"
        case .apiMyPassword: "/api/v1/me/password"
        case .apiMemberProfile(let id): "/api/v1/members/\(id)"
        case .apiStaffProfile(let id): "/api/v1/staff/\(id)"
        case .apiThreads: "/api/v1/threads"
        case .apiThread(let id): "/api/v1/threads/\(id)"
        case .apiThreadReplies(let id): "/api/v1/threads/\(id)/replies"
        case .apiThreadFlags(let id): "/api/v1/threads/\(id)/flags"
        case .apiReplyFlags(let id): "/api/v1/replies/\(id)/flags"
        case .apiNotifications: "/api/v1/notifications"
        case .apiChat: "/api/v1/chat"
        case .apiChatMessages: "/api/v1/chat/messages"
        case .apiChatMessageReports(let id): "/api/v1/chat/messages/\(id)/reports"
        case .apiChatLive: "/api/v1/chat/live"
        case .apiMoods: "/api/v1/moods"
        case .apiNotificationsUnreadCount: "/api/v1/notifications/unread-count"
        case .apiNotificationRead(let id): "/api/v1/notifications/\(id)/read"
        case .apiNotificationsReadAll: "/api/v1/notifications/read-all"
        case .apiNotificationPreferences: "/api/v1/notifications/preferences"
        case .apiPushTokens: "/api/v1/push-tokens"
        case .apiPushToken(let token): "/api/v1/push-tokens/\(token, as: "token")"
        case .apiResources: "/api/v1/resources"
        case .apiPoints: "/api/v1/points"
        case .apiBabyWeek: "/api/v1/baby-week"
        case .apiCalendarEvents: "/api/v1/calendar/events"
        case .apiCalendarEvent(let id): "/api/v1/calendar/events/\(id)"
        case .apiLearning: "/api/v1/learning"
        case .apiLearningModule(let id): "/api/v1/learning/modules/\(id)"
        case .apiLearningModuleAttempts(let id): "/api/v1/learning/modules/\(id)/attempts"
        case .apiLearningVideoWatched(let id): "/api/v1/learning/videos/\(id)/watched"
        case .apiLearningVideoFile(let id): "/api/v1/learning/videos/\(id)/file"
        case .apiEvents: "/api/v1/events"
        case .apiSurveys: "/api/v1/surveys"
        case .apiSurvey(let id): "/api/v1/surveys/\(id)"
        case .apiSurveyResponses(let id): "/api/v1/surveys/\(id)/responses"
        // The member's web app
        case .appMemberHome: "\(AppAccountKind.member.pagesPath)"
        case .appMemberRegister: "\(AppAccountKind.member.pagesPath)/register"
        case .appMemberRecovery: "\(AppAccountKind.member.pagesPath)/recovery"
        case .appMemberHelp: "\(AppAccountKind.member.pagesPath)/help"
        case .appMemberRewards: "\(AppAccountKind.member.pagesPath)/rewards"
        case .appMemberReward(let id): "\(AppAccountKind.member.pagesPath)/rewards/\(id)"
        case .appLearning: "\(AppAccountKind.member.pagesPath)/learning"
        case .appLearningModule(let id): "\(AppAccountKind.member.pagesPath)/learning/modules/\(id)"
        case .appLearningVideo(let id): "\(AppAccountKind.member.pagesPath)/learning/videos/\(id)"
        case .appLearningVideoWatched(let id): "\(AppAccountKind.member.pagesPath)/learning/videos/\(id)/watched"
        case .appLearningVideoFile(let id): "\(AppAccountKind.member.pagesPath)/learning/videos/\(id)/file"
        case .appMood: "\(AppAccountKind.member.pagesPath)/mood"
        case .appChat: "\(AppAccountKind.member.pagesPath)/chat"
        case .appChatMessages: "\(AppAccountKind.member.pagesPath)/chat/messages"
        case .appChatMessageReport(let id): "\(AppAccountKind.member.pagesPath)/chat/messages/\(id)/report"
        case .appSurveys: "\(AppAccountKind.member.pagesPath)/surveys"
        case .appSurvey(let id): "\(AppAccountKind.member.pagesPath)/surveys/\(id)"
        case .appCalendar: "\(AppAccountKind.member.pagesPath)/calendar"
        case .appCalendarNew: "\(AppAccountKind.member.pagesPath)/calendar/new"
        case .appCalendarEvent(let id): "\(AppAccountKind.member.pagesPath)/calendar/events/\(id)"
        case .appCalendarEventDelete(let id): "\(AppAccountKind.member.pagesPath)/calendar/events/\(id)/delete"
        case .appMemberProfile: "\(AppAccountKind.member.pagesPath)/profile"
        case .appMemberPassword: "\(AppAccountKind.member.pagesPath)/password"
        case .appMemberNotifications: "\(AppAccountKind.member.pagesPath)/notifications"
        case .appMemberNotificationsReadAll: "\(AppAccountKind.member.pagesPath)/notifications/read-all"
        case .appMemberNotificationChoices: "\(AppAccountKind.member.pagesPath)/notifications/choices"
        case .appMemberRecordOpenings: "\(AppAccountKind.member.pagesPath)/record-openings"
        case .appDesk: "\(AppAccountKind.member.pagesPath)/desk"
        case .appDeskAsk: "\(AppAccountKind.member.pagesPath)/desk/ask"
        case .appDeskThread(let id): "\(AppAccountKind.member.pagesPath)/desk/threads/\(id)"
        case .appDeskReplies(let id): "\(AppAccountKind.member.pagesPath)/desk/threads/\(id)/replies"
        case .appDeskThreadFlag(let id): "\(AppAccountKind.member.pagesPath)/desk/threads/\(id)/flag"
        case .appDeskReplyFlag(let id): "\(AppAccountKind.member.pagesPath)/desk/replies/\(id)/flag"
        // The physicians' practice
        case .catalogue: "/catalogue"
        case .newCatalogueMedication: "/catalogue/medications/new"
        case .editCatalogueMedication(let id): "/catalogue/medications/\(id)/edit"
        case .newCatalogueExercise: "/catalogue/exercises/new"
        case .editCatalogueExercise(let id): "/catalogue/exercises/\(id)/edit"
        case .catalogueIllustration(let id): "/catalogue/exercises/\(id)/illustration"
        case .newCatalogueFrequency: "/catalogue/frequencies/new"
        case .editCatalogueFrequency(let id): "/catalogue/frequencies/\(id)/edit"
        case .newCatalogueAmount: "/catalogue/amounts/new"
        case .editCatalogueAmount(let id): "/catalogue/amounts/\(id)/edit"
        case .removeCatalogueMedication(let id): "/catalogue/medications/\(id)/remove"
        case .removeCatalogueExercise(let id): "/catalogue/exercises/\(id)/remove"
        case .removeCatalogueFrequency(let id): "/catalogue/frequencies/\(id)/remove"
        case .removeCatalogueAmount(let id): "/catalogue/amounts/\(id)/remove"
        case .patients: "/patients"
        case .newPatient: "/patients/new"
        case .patientDraftContact(let id): "/patients/drafts/\(id)/contact"
        case .patientDraftMedications(let id): "/patients/drafts/\(id)/medications"
        case .patientDraftExercises(let id): "/patients/drafts/\(id)/exercises"
        case .patientDraftCancel(let id): "/patients/drafts/\(id)/cancel"
        case .patient(let id): "/patients/\(id)"
        case .editPatientContact(let id): "/patients/\(id)/contact"
        case .editPatientMedications(let id): "/patients/\(id)/medications"
        case .editPatientExercises(let id): "/patients/\(id)/exercises"
        case .patientHistory(let id): "/patients/\(id)/history"
        case .patientRemove(let id): "/patients/\(id)/remove"
        case .patientReassign(let id): "/patients/\(id)/physician"
        case .patientClaimResend(let id): "/patients/\(id)/claim/resend"
        case .patientClaimRevoke(let id): "/patients/\(id)/claim/revoke"
        case .patientReport(let id): "/patients/\(id)/report"
        case .patientReportCSV(let id): "/patients/\(id)/report.csv"
        case .patientReportPDF(let id): "/patients/\(id)/report.pdf"
        // The patient app's API
        case .apiPatientClaimCheck: "/api/v1/patient/claim/check"
        case .apiPatientClaim: "/api/v1/patient/claim"
        case .apiPatientSessions: "\(AppAccountKind.patient.sessionsPath)"
        case .apiPatientCurrentSession: "\(AppAccountKind.patient.currentSessionPath)"
        case .apiPatientMe: "/api/v1/patient/me"
        case .apiPatientRecordOpenings: "/api/v1/patient/record-openings"
        case .apiPatientRegimen: "/api/v1/patient/regimen"
        case .apiPatientIllustration(let id): "/api/v1/patient/exercises/\(id)/illustration"
        case .apiPatientSchedule: "/api/v1/patient/schedule"
        case .apiPatientScheduleEntry(let day, let entry): "/api/v1/patient/schedule/\(day, as: "date")/entries/\(entry, as: "entry")"
        case .apiPatientStatistics: "/api/v1/patient/statistics"
        case .apiPatientReminders: "/api/v1/patient/reminders"
        // The patient's web app
        case .appPatientDay: "\(AppAccountKind.patient.pagesPath)"
        case .appPatientEntry(let day, let entry): "\(AppAccountKind.patient.pagesPath)/days/\(day, as: "date")/entries/\(entry, as: "entry")"
        case .appPatientProgress: "\(AppAccountKind.patient.pagesPath)/progress"
        case .appPatientReminders: "\(AppAccountKind.patient.pagesPath)/reminders"
        case .appPatientDoctor: "\(AppAccountKind.patient.pagesPath)/doctor"
        case .appPatientClaim: "\(AppAccountKind.patient.pagesPath)/claim"
        case .appPatientClaimAccount: "\(AppAccountKind.patient.pagesPath)/claim/account"
        case .appPatientRecordOpenings: "\(AppAccountKind.patient.pagesPath)/record-openings"
        // The research study
        case .studies: "/studies"
        case .studyParticipants: "/studies/participants"
        case .newStudyParticipant: "/studies/participants/new"
        case .studyParticipant(let id): "/studies/participants/\(id)"
        case .studyParticipantWithdraw(let id): "/studies/participants/\(id)/withdraw"
        case .studyParticipantDelete(let id): "/studies/participants/\(id)/delete"
        case .studyTodos: "/studies/todos"
        case .newStudyTodo: "/studies/todos/new"
        case .studyTodo(let id): "/studies/todos/\(id)"
        case .studyFeedback: "/studies/feedback"
        case .studyFeedbackHandled(let id): "/studies/feedback/\(id)/handled"
        case .studyContact: "/studies/contact"
        case .studyLocations: "/studies/locations"
        case .newStudyLocation: "/studies/locations/new"
        case .editStudyLocation(let id): "/studies/locations/\(id)/edit"
        case .deleteStudyLocation(let id): "/studies/locations/\(id)/delete"
        case .studyVideos: "/studies/videos"
        case .newStudyVideo: "/studies/videos/new"
        case .studyVideo(let id): "/studies/videos/\(id)"
        case .studyVideoFile(let id): "/studies/videos/\(id)/file"
        case .studyExports: "/studies/exports"
        case .studyExport(let export): "/studies/exports/\(export.fileName)"
        case .studyParticipantClaimResend(let id): "/studies/participants/\(id)/claim/resend"
        case .studyParticipantClaimRevoke(let id): "/studies/participants/\(id)/claim/revoke"
        // The study app's API
        case .apiStudyLocations: "/api/v1/study/locations"
        case .apiStudyVideos: "/api/v1/study/videos"
        case .apiStudyVideoFile(let id): "/api/v1/study/videos/\(id)/file"
        case .apiStudySessions: "\(AppAccountKind.participant.sessionsPath)"
        case .apiStudyCurrentSession: "\(AppAccountKind.participant.currentSessionPath)"
        case .apiStudyPassword: "/api/v1/study/me/password"
        case .apiStudyStatistics: "/api/v1/study/statistics"
        case .apiStudyTodos: "/api/v1/study/todos"
        case .apiStudyTodo(let id): "/api/v1/study/todos/\(id)"
        case .apiStudyOpens: "/api/v1/study/opens"
        case .apiStudyFeedback: "/api/v1/study/feedback"
        case .apiStudyContact: "/api/v1/study/contact"
        case .apiStudyRecordOpenings: "/api/v1/study/record-openings"
        case .apiStudyClaim: "/api/v1/study/claim"
        // The participant's web app
        case .appStudyToday: "\(AppAccountKind.participant.pagesPath)"
        case .appStudyTodo(let id): "\(AppAccountKind.participant.pagesPath)/todos/\(id)"
        case .appStudyProgress: "\(AppAccountKind.participant.pagesPath)/progress"
        case .appStudyFeedback: "\(AppAccountKind.participant.pagesPath)/feedback"
        case .appStudyContact: "\(AppAccountKind.participant.pagesPath)/contact"
        case .appStudyLocations: "\(AppAccountKind.participant.pagesPath)/locations"
        case .appStudyVideos: "\(AppAccountKind.participant.pagesPath)/videos"
        case .appStudyVideo(let id): "\(AppAccountKind.participant.pagesPath)/videos/\(id)"
        case .appStudyVideoFile(let id): "\(AppAccountKind.participant.pagesPath)/videos/\(id)/file"
        case .appStudyPassword: "\(AppAccountKind.participant.pagesPath)/password"
        case .appStudyClaim: "\(AppAccountKind.participant.pagesPath)/claim"
        case .appStudyRecordOpenings: "\(AppAccountKind.participant.pagesPath)/record-openings"
        // The pharmacy
        case .pharmacy: "/pharmacy"
        case .pharmacyRefill(let id): "/pharmacy/refills/\(id)"
        case .pharmacyRefillStatus(let id): "/pharmacy/refills/\(id)/status"
        case .pharmacyCustomers: "/pharmacy/customers"
        case .pharmacyCustomer(let id): "/pharmacy/customers/\(id)"
        case .pharmacyCustomerEdit(let id): "/pharmacy/customers/\(id)/edit"
        case .pharmacyCustomerDisable(let id): "/pharmacy/customers/\(id)/disable"
        case .pharmacyCustomerEnable(let id): "/pharmacy/customers/\(id)/enable"
        case .pharmacyCustomerPrescriptions(let id): "/pharmacy/customers/\(id)/prescriptions"
        case .pharmacyPrescriptionRemove(let id): "/pharmacy/prescriptions/\(id)/remove"
        case .pharmacyDeals: "/pharmacy/deals"
        case .newPharmacyDeal: "/pharmacy/deals/new"
        case .editPharmacyDeal(let id): "/pharmacy/deals/\(id)/edit"
        case .deletePharmacyDeal(let id): "/pharmacy/deals/\(id)/delete"
        case .pharmacyRewards: "/pharmacy/rewards"
        case .pharmacyRewardRetire(let id): "/pharmacy/rewards/\(id)/retire"
        case .pharmacyVoucherCheck: "/pharmacy/vouchers/check"
        case .pharmacyBeacons: "/pharmacy/beacons"
        case .pharmacyBeaconRemove(let id): "/pharmacy/beacons/\(id)/remove"
        case .pharmacyResetPassword: "/pharmacy/reset-password"
        case .pharmacyDealPicture(let id): "/pharmacy/deals/\(id)/picture"
        // The pharmacy customers' API
        case .apiPharmacyRegistrations: "/api/v1/pharmacy/registrations"
        case .apiPharmacySessions: "\(AppAccountKind.pharmacyCustomer.sessionsPath)"
        case .apiPharmacyCurrentSession: "\(AppAccountKind.pharmacyCustomer.currentSessionPath)"
        case .apiPharmacyPasswordResets: "/api/v1/pharmacy/password-resets"
        case .apiPharmacyPasswordResetCompletion: "/api/v1/pharmacy/password-resets/complete"
        case .apiPharmacyMe: "/api/v1/pharmacy/me"
        case .apiPharmacyRecordOpenings: "/api/v1/pharmacy/record-openings"
        case .apiPharmacyHistory: "/api/v1/pharmacy/history"
        case .apiPharmacyAddress: "/api/v1/pharmacy/me/address"
        case .apiPharmacyHome: "/api/v1/pharmacy/home"
        case .apiPharmacyStepUp: "/api/v1/pharmacy/step-up"
        case .apiPharmacyPrescriptions: "/api/v1/pharmacy/prescriptions"
        case .apiPharmacyRefills: "/api/v1/pharmacy/refills"
        case .apiPharmacyDeals: "/api/v1/pharmacy/deals"
        case .apiPharmacyBeacons: "/api/v1/pharmacy/beacons"
        case .apiPharmacyVisits: "/api/v1/pharmacy/visits"
        case .apiPharmacyRewards: "/api/v1/pharmacy/rewards"
        case .apiPharmacyVouchers: "/api/v1/pharmacy/vouchers"
        case .apiPharmacyVoucherActivation(let id): "/api/v1/pharmacy/vouchers/\(id)/activate"
        case .apiPharmacyNotifications: "/api/v1/pharmacy/notifications"
        case .apiPharmacyNotificationRead(let id): "/api/v1/pharmacy/notifications/\(id)/read"
        case .apiPharmacyNotificationsReadAll: "/api/v1/pharmacy/notifications/read-all"
        case .apiPharmacyDealPicture(let id): "/api/v1/pharmacy/deals/\(id)/picture"
        case .apiPharmacyNotificationPreferences: "/api/v1/pharmacy/notifications/preferences"
        case .apiPharmacyPushTokens: "/api/v1/pharmacy/push-tokens"
        case .apiPharmacyPushToken(let token): "/api/v1/pharmacy/push-tokens/\(token, as: "token")"
        // The pharmacy customer's web app
        case .appPharmacyRecordOpenings: "\(AppAccountKind.pharmacyCustomer.pagesPath)/record-openings"
        case .appPharmacyHome: "\(AppAccountKind.pharmacyCustomer.pagesPath)"
        case .appPharmacyRegister: "\(AppAccountKind.pharmacyCustomer.pagesPath)/register"
        case .appPharmacyForgottenPassword: "\(AppAccountKind.pharmacyCustomer.pagesPath)/forgotten-password"
        case .appPharmacyDeals: "\(AppAccountKind.pharmacyCustomer.pagesPath)/deals"
        case .appPharmacyDealPicture(let id): "\(AppAccountKind.pharmacyCustomer.pagesPath)/deals/\(id)/picture"
        case .appPharmacyRewards: "\(AppAccountKind.pharmacyCustomer.pagesPath)/rewards"
        case .appPharmacyReward(let id): "\(AppAccountKind.pharmacyCustomer.pagesPath)/rewards/\(id)"
        case .appPharmacyVouchers: "\(AppAccountKind.pharmacyCustomer.pagesPath)/vouchers"
        case .appPharmacyHistory: "\(AppAccountKind.pharmacyCustomer.pagesPath)/history"
        case .appPharmacyVoucher(let id): "\(AppAccountKind.pharmacyCustomer.pagesPath)/vouchers/\(id)"
        case .appPharmacyVoucherActivation(let id): "\(AppAccountKind.pharmacyCustomer.pagesPath)/vouchers/\(id)/activate"
        case .appPharmacyPrescriptions: "\(AppAccountKind.pharmacyCustomer.pagesPath)/prescriptions"
        case .appPharmacyPrescriptionsUnlock: "\(AppAccountKind.pharmacyCustomer.pagesPath)/prescriptions/unlock"
        case .appPharmacyRefill(let id): "\(AppAccountKind.pharmacyCustomer.pagesPath)/prescriptions/\(id)/refill"
        case .appPharmacyAddress: "\(AppAccountKind.pharmacyCustomer.pagesPath)/address"
        case .appPharmacyNotifications: "\(AppAccountKind.pharmacyCustomer.pagesPath)/notifications"
        case .appPharmacyNotificationsReadAll: "\(AppAccountKind.pharmacyCustomer.pagesPath)/notifications/read-all"
        case .appPharmacyNotificationChoices: "\(AppAccountKind.pharmacyCustomer.pagesPath)/notifications/choices"
        // Every kind's web app
        case .app: "\(AppPageCookies.root)"
        case .appSignIn(let kind): "\(kind.signInPagePath)"
        case .appSignOut(let kind): "\(kind.signOutPagePath)"
        case .appManifest: "\(AppPageCookies.manifestPath)"
        // Memory care
        case .care(let url): url.route
        }
    }

    /// The address to link to.
    var path: String { route.path }

    /// The router's pattern: `:id` (or the name the address gives) where a value goes.
    var pattern: RouterPath { route.routerPath }

    /// The router pattern of an address with one record number: `:id`.
    static func pattern(_ url: (Int64) -> SiteURL) -> RouterPath {
        url(0).pattern
    }

    /// The router pattern of an address with one other number (`babyWeek`'s `:week`).
    static func pattern(_ url: (Int) -> SiteURL) -> RouterPath {
        url(0).pattern
    }

    /// The router pattern of an address with one value written as text (a phone's `:token`).
    static func pattern(_ url: (String) -> SiteURL) -> RouterPath {
        url("").pattern
    }

    /// The router pattern of an address with two values written as text (a day's `:date` and its `:entry`).
    static func pattern(_ url: (String, String) -> SiteURL) -> RouterPath {
        url("", "").pattern
    }

    /// Where someone in this role starts: medical professionals work only on the information desk,
    /// researchers only on the study.
    static func landing(for role: StaffRole) -> SiteURL {
        switch role {
        case .medicalProfessional: .desk
        case .researcher: .studies
        default: .home
        }
    }
}

extension Parameters {
    /// The `:id` of the route as a record number; a malformed one is simply not found.
    func recordID() throws -> Int64 {
        guard let value = get("id"), let id = Int64(value), id > 0 else { throw HTTPError(.notFound) }
        return id
    }
}

/// A redirect after a form, so reloading the next page never sends the form again.
func seeOther(_ url: SiteURL) -> Response {
    seeOther(url.path)
}

extension Portal {
    /// The layout for a page, with the navigation the signed-in person's role allows; `current` is marked as the page's own.
    func layout(_ title: String, context: PortalContext, current: SiteURL? = nil) -> Layout {
        layout(title, context: context, currentPath: current?.path)
    }
}
