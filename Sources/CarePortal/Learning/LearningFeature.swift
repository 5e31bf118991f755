import Foundation
import PortalPlatform
import SQLKit

/// The learning center: the baby's development week by week, and the points members earn into the
/// shared ledger (a point a day for using the app; what videos, modules and surveys earn), reset each
/// month on the program's clock.
struct LearningFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let navigation = [
        NavigationItem(title: "Learning", path: SiteURL.learning.path, access: LearningController.access, group: .learning)
    ]
    static let auditActions: [AuditAction] = [.babyWeekChanged, .pointsRulesChanged] + LearningContentController.auditActions
    static let templates: [TemplateName] =
        [.learning, .babyWeek, .pointsRules] + LearningContentController.templates + TemplateName.appLearningTemplates
    static let notificationKinds: [NotificationKind] = [.learningNewModule]
    static let notificationSubjects = [
        NotificationSubjectTitles(type: NotificationSubject.learningModuleType) { ids, db in
            try await LearningContentRepository.moduleTitles(ids, on: db)
        }
    ]

    let portal: Portal
    let centerCache = LearningCenterCache()

    init(portal: Portal) {
        self.portal = portal
    }

    func addRoutes(to routes: inout PortalRoutes) {
        LearningController(portal: portal).addRoutes(to: &routes)
        LearningAPIController(portal: portal).addRoutes(to: &routes)
        LearningContentController(portal: portal).addRoutes(to: &routes)
        VideoLibraryController(portal: portal, library: .perinatal).addRoutes(to: &routes)
        let center = LearningCenter(portal: portal)
        LearningCenterAPIController(portal: portal, cache: centerCache, learning: center).addRoutes(to: &routes)
        LearningAppController(portal: portal, center: center).addRoutes(to: &routes)
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        let repository = BabyWeekRepository()
        for week in BabyWeekContent.weeks { try await repository.save(week, now: demo.now, on: db) }
        try await LearningDemo.seed(demo, on: db)
    }
}

extension TemplateName {
    static let learning = TemplateName("learning/overview")
    static let babyWeek = TemplateName("learning/week")
    static let pointsRules = TemplateName("learning/points")
}

extension AuditAction {
    static let babyWeekChanged = AuditAction("baby_week_changed", title: "Baby's week changed")
    static let pointsRulesChanged = AuditAction("points_rules_changed", title: "Points rules changed")
}

/// Plain, general content for every week, for `seed-demo`; administrators adapt it. Sizes are the usual
/// fruit-and-vegetable comparisons; every pregnancy differs, which the app says beside them.
enum BabyWeekContent {
    private static let rows: [(Int, String, String, String)] = [
        (
            4, "a poppy seed", "You may not know yet that you are pregnant. A missed period is often the first sign.",
            "The fertilised egg has settled into the lining of the womb and the placenta is starting to form."
        ),
        (
            5, "a sesame seed", "Tiredness, sore breasts and needing to pass urine more often are common.",
            "The neural tube, which becomes the brain and spinal cord, is forming."
        ),
        (
            6, "a lentil", "Nausea (morning sickness) often starts now and can come at any time of day.",
            "The heart has begun to beat, and small buds that will become arms and legs appear."
        ),
        (
            7, "a blueberry", "Nausea and tiredness may be at their strongest. Small, frequent meals can help.",
            "The brain is growing quickly and the face is starting to take shape."
        ),
        (
            8, "a raspberry", "Your womb is growing, though it does not show yet. You may feel bloated.",
            "Fingers and toes are beginning to form, and the baby starts to make small movements."
        ),
        (
            9, "a cherry", "Mood changes are common as your hormones change. Talk to someone you trust if you feel low.",
            "The main organs are forming and the baby is now called a fetus."
        ),
        (
            10, "a strawberry", "Your first antenatal appointment usually happens around now, if it has not already.",
            "Tiny nails are forming, and the kidneys are starting to work."
        ),
        (
            11, "a lime", "Nausea may begin to ease for many women. Keep drinking water through the day.",
            "The baby can open and close its hands, and the bones are starting to harden."
        ),
        (
            12, "a plum", "A dating scan is often offered around now. Your energy may start to come back.",
            "Most of the baby's organs have formed; from now on they grow and mature."
        ),
        (
            13, "a lemon", "This is the last week of the first trimester. The chance of miscarriage is now much lower.",
            "The baby's vocal cords are forming and it may suck its thumb."
        ),
        (
            14, "a peach", "The second trimester begins. Many women feel better and have more energy.",
            "The baby can frown and squint, and fine hair (lanugo) starts to grow."
        ),
        (
            15, "an apple", "You may notice a stuffy nose or bleeding gums; both are common in pregnancy.",
            "The baby's legs are growing longer than its arms, and it moves a lot."
        ),
        (
            16, "an avocado", "Some women feel the first flutters of movement between now and week 20.",
            "The eyes can move, and the baby's heart pumps a lot of blood every day."
        ),
        (
            17, "a pear", "Your bump may start to show. Aches in your lower belly can come as your womb stretches.",
            "Fat begins to form under the skin, and the skeleton is hardening from cartilage to bone."
        ),
        (
            18, "a bell pepper", "You may feel light-headed if you stand up quickly; take your time getting up.",
            "The baby can hear sounds, such as your heartbeat."
        ),
        (
            19, "a mango", "Backache is common. Comfortable shoes and good posture can help.",
            "A protective coating called vernix covers the baby's skin."
        ),
        (
            20, "a banana", "You are halfway. A mid-pregnancy scan is often offered around now.",
            "The baby swallows and is practising the movements it will need for feeding."
        ),
        (
            21, "a carrot", "Movements are becoming easier to feel, and may feel like kicks.",
            "The baby's digestive system is developing, and it has regular periods of sleep."
        ),
        (
            22, "a papaya", "Stretch marks may appear on your belly or breasts; they usually fade after birth.",
            "The baby's senses are developing, including touch."
        ),
        (
            23, "a grapefruit", "Swollen ankles and feet are common, especially at the end of the day.",
            "The lungs are developing the structures they will need to breathe."
        ),
        (
            24, "an ear of corn", "Tell your midwife if you notice sudden swelling of the face, hands or feet.",
            "The baby's face is almost fully formed, with eyelashes and eyebrows."
        ),
        (
            25, "a cauliflower", "You may find it harder to sleep. Lying on your side with a pillow can help.",
            "The baby responds to familiar sounds, such as your voice."
        ),
        (26, "a head of lettuce", "Heartburn is common as the baby grows. Smaller meals may help.", "The baby's eyes begin to open."),
        (
            27, "a rutabaga", "This is the last week of the second trimester. Keep going to your appointments.",
            "The brain is very active, and the baby has regular times of sleeping and waking."
        ),
        (
            28, "an eggplant", "The third trimester begins. Get to know your baby's pattern of movements.",
            "The baby can blink, and its eyes can sense light."
        ),
        (
            29, "a butternut squash", "You may feel more tired again. Rest when you can.",
            "The baby's muscles and lungs keep maturing, and it is gaining weight."
        ),
        (
            30, "a cabbage", "Shortness of breath is common as your womb presses up under your ribs.",
            "The baby's brain is growing fast, and it can grasp firmly."
        ),
        (
            31, "a coconut", "Practice contractions (Braxton Hicks) may come and go; they are usually painless.",
            "The baby turns its head from side to side and its bones are fully formed, though still soft."
        ),
        (
            32, "a jicama", "Tell your midwife straight away if your baby's movements slow down or change.",
            "Toenails and fingernails have grown, and the baby practises breathing movements."
        ),
        (
            33, "a pineapple", "You may need to pass urine more often as the baby moves lower.",
            "The baby's immune system is developing, helped by antibodies from you."
        ),
        (
            34, "a cantaloupe melon", "Now is a good time to think about your birth plan and who will support you.",
            "The protective vernix is getting thicker, and the lungs are nearly mature."
        ),
        (
            35, "a honeydew melon", "You may feel heavy and uncomfortable. Gentle walks can help.",
            "Most of the baby's systems are well developed, and it is putting on fat."
        ),
        (
            36, "a romaine lettuce", "The baby may move down into your pelvis, which can make breathing easier.",
            "The baby is likely to be head down by now, getting ready for birth."
        ),
        (
            37, "a bunch of Swiss chard", "Your baby is now considered early term. Keep your hospital bag ready.",
            "The baby is practising breathing, sucking and gripping."
        ),
        (
            38, "a leek", "Signs of labour include regular contractions, your waters breaking, or a show. Call your midwife if unsure.",
            "The baby's organs are ready for life outside the womb."
        ),
        (
            39, "a small watermelon", "Rest as much as you can. Keep in touch with your midwife or clinic.",
            "The baby is full term and continues to gain weight."
        ),
        (
            40, "a small pumpkin", "Your due date is here. Only a few babies arrive on the day itself; many come within two weeks either side.",
            "Your baby is ready to be born. Tell your midwife if you notice fewer movements."
        )
    ]

    static var weeks: [BabyWeek] {
        rows.map { BabyWeek(week: $0.0, size: "About the size of \($0.1)", mother: $0.2, baby: $0.3) }
    }
}
