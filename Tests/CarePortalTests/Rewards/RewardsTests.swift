import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Rewards and their redemption are one part both programs with points use: members spend theirs on gift
/// cards that administrators send (DR6), and the pharmacy's vouchers are kept by the same part.
@Suite struct RewardsTests {
    static func give(_ points: Int, to memberID: Int64, _ portal: TestPortal) async throws {
        _ = try await portal.database.write { db in
            try await PointsLedger().award(
                PointsAward(reason: "test_points", reference: UUID().uuidString, amount: points, period: .month),
                to: .member(memberID),
                at: portal.clock.now,
                clock: portal.portal.programSettings.current.clock,
                on: db
            )
        }
    }

    static func reward(
        title: String = "Grocery gift card",
        cost: String = "60",
        gives: String = "$10 grocery gift card",
        stock: String = "2",
        description: String = "Sent by email within a week."
    ) -> [(String, String)] {
        [("title", title), ("points_cost", cost), ("cashier_gives", gives), ("stock", stock), ("description", description)]
    }

    @Test(arguments: TestEngines.all)
    func membersSpendPointsOnGiftCardsThatAdministratorsSendAndTheyAreToldInTheirFeed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, staff) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.rewards.path).text.contains("The catalogue is empty"))

            // Every problem beside its field, the input kept, nothing stored.
            let wrong = try await admin.post(SiteURL.rewards.path, form: Self.reward(title: "", cost: "0", gives: "", stock: "many"))
            #expect(wrong.status == .unprocessableContent)
            #expect(
                wrong.errorSummary == [
                    "Enter a title", "Enter the cost as a whole number of points from 1 to 100000",
                    "Enter the gift card, like $10 grocery gift card",
                    "Enter how many are left as a whole number from 0 to 100000, or leave it empty for no limit"
                ]
            )
            #expect(wrong.text.contains(#"value="many""#))
            #expect(try await portal.database.read { db in try await db.count(in: "rewards") } == 0)

            #expect(try await admin.post(SiteURL.rewards.path, form: Self.reward()).location == SiteURL.rewards.path)
            #expect(
                try await admin.post(SiteURL.rewards.path, form: Self.reward(title: "Baby store gift card", cost: "500", stock: "")).status
                    == .seeOther
            )
            let catalogue = try await admin.get(SiteURL.rewards.path)
            #expect(
                catalogue.text.contains("Baby store gift card added to the catalogue.") && catalogue.text.contains("2 left")
                    && catalogue.text.contains("No limit")
            )
            let offered = try await portal.database.read { db in
                try await RewardsRepository(program: Program.perinatalCommunity.id).rewards(includingRetired: false, on: db)
            }
            let grocery = try #require(offered.first { $0.title == "Grocery gift card" })
            let baby = try #require(offered.first { $0.title == "Baby store gift card" })
            #expect(grocery.handedOver == .sent && grocery.stock == 2 && baby.stock == nil)
            #expect(try await portal.auditEntries(action: .rewardAdded).count == 2)
            // The pharmacy's catalogue is its own.
            #expect(try await portal.database.read { db in try await PharmacyRepository().rewards(includingRetired: true, on: db) }.isEmpty)

            // She sees her points and the catalogue; too few points for the dearer one.
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let wrenID = Int64(try #require(member["id"] as? Int))
            try await Self.give(100, to: wrenID, portal)
            let read = try await wren.get(SiteURL.apiRewards.path).object
            let before = try #require(read["points"] as? Int)
            let listed = try #require(read["rewards"] as? [[String: Any]])
            #expect(listed.map { $0["title"] as? String } == ["Grocery gift card", "Baby store gift card"])
            #expect(listed[0]["left"] as? Int == 2 && listed[0]["affordable"] as? Bool == true && listed[1]["affordable"] as? Bool == false)
            #expect(listed[0]["gives"] as? String == "$10 grocery gift card")

            let tooDear = try await wren.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": baby.id])
            #expect(tooDear.status == .conflict && tooDear.errorCode == "not_enough_points")
            let made = try await wren.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": grocery.id])
            #expect(made.status == .created && made.object["points"] as? Int == before - 60)
            let redemption = try #require(made.object["redemption"] as? [String: Any])
            let redemptionID = Int64(try #require(redemption["id"] as? Int))
            #expect(redemption["status"] as? String == "waiting" && redemption["gift_card_code"] == nil)
            #expect(try await portal.auditEntries(action: .rewardRedeemed).contains { $0.recordID == "\(redemptionID)" && $0.actorRole == "member" })

            // The stock runs out: one left, taken by Lark; then none for Wren, and nothing of hers is spent.
            let (lark, larkMember) = try await AppClient.registered(portal, pseudonym: "Lark")
            try await Self.give(100, to: Int64(try #require(larkMember["id"] as? Int)), portal)
            #expect(try await lark.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": grocery.id]).status == .created)
            let gone = try await wren.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": grocery.id])
            #expect(gone.status == .conflict && gone.errorCode == "out_of_stock")
            #expect(try await wren.get(SiteURL.apiRewards.path).object["points"] as? Int == before - 60)
            #expect(try await admin.get(SiteURL.rewards.path).text.contains("None left"))

            // Administrators send it, with the gift card's code; it is sealed where it is kept.
            let queue = try await admin.get(SiteURL.rewardRedemptions.path)
            #expect(queue.text.contains("Wren") && queue.text.contains("Lark") && queue.text.contains("Grocery gift card"))
            let tooLong = try await admin.post(SiteURL.rewardRedemptionSent(redemptionID).path, form: [("code", String(repeating: "X", count: 201))])
            #expect(tooLong.status == .unprocessableContent)
            #expect(
                try await admin.post(SiteURL.rewardRedemptionSent(redemptionID).path, form: [("code", "GIFT-1234-ABCD")]).location
                    == SiteURL.rewardRedemptions.path
            )
            #expect(
                try await admin.post(SiteURL.rewardRedemptionSent(redemptionID).path, form: [("code", "again")]).status == .notFound,
                "sent once"
            )
            let stored = try await portal.database.read { db in
                try await db.select().column("sent_note").from("redemptions").where("id", .equal, redemptionID).first()?.decode(
                    column: "sent_note",
                    as: String.self
                )
            }
            #expect(stored != nil && stored?.contains("GIFT-1234") == false)
            #expect(try await portal.auditEntries(action: .rewardSent).contains { $0.recordID == "\(redemptionID)" && $0.actorAccountID == staff.id })
            let (feed, _) = try await FeedSteps.feed(wren)
            #expect(feed.contains { $0["kind"] as? String == "reward_sent" && ($0["message"] as? String)?.contains("Grocery gift card") == true })
            let hers = try #require(try await wren.get(SiteURL.apiRewardRedemptions.path).object["redemptions"] as? [[String: Any]])
            #expect(hers.count == 1 && hers[0]["status"] as? String == "sent" && hers[0]["gift_card_code"] as? String == "GIFT-1234-ABCD")
            #expect(!(try await admin.get(SiteURL.rewardRedemptions.path).text.contains(">Wren<")))

            // Her page shows administrators her balance, her points and what she redeemed.
            let page = try await admin.get(SiteURL.member(wrenID).path)
            #expect(page.text.contains("\(before - 60) points to spend") && page.text.contains("Redeemed a reward") && page.text.contains("-60"))
            #expect(page.text.contains("Sent "))

            // Retired, it is no longer offered; what was redeemed stays hers.
            #expect(try await admin.post(SiteURL.rewardRetire(grocery.id).path).location == SiteURL.rewards.path)
            #expect(try await wren.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": grocery.id]).status == .unprocessableContent)
            #expect((try await wren.get(SiteURL.apiRewardRedemptions.path).object["redemptions"] as? [Any])?.count == 1)
            // Restocked: bad input changes nothing; a number sets how many are left.
            let refused = try await admin.post(SiteURL.rewardStock(baby.id).path, form: [("stock", "-1")])
            #expect(refused.status == .unprocessableContent)
            // The message links to the row's own box, which keeps what was typed, with the message beside it.
            #expect(refused.text.contains(##"href="#stock-\##(baby.id)""##) && refused.text.contains(#"id="stock-\#(baby.id)-error""#))
            #expect(refused.text.contains(#"id="stock-\#(baby.id)" name="stock" type="number" min="0" value="-1""#))
            #expect(!refused.text.contains(##"href="#stock""##), "not the add form's box")
            #expect(try await admin.post(SiteURL.rewardStock(baby.id).path, form: [("stock", "5")]).location == SiteURL.rewards.path)
            #expect(
                try await portal.database.read { db in try await RewardsRepository(program: Program.perinatalCommunity.id).reward(id: baby.id, on: db)
                }?.stock == 5
            )

            // Deleting her account takes her redemptions with it.
            #expect(try await admin.post(SiteURL.memberDelete(wrenID).path).status == .seeOther)
            let left = try await portal.database.read { db in
                try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("redemptions")
                    .where("account_role", .equal, "member").where("account_id", .equal, wrenID).first()?.decode(column: "n", as: Int.self)
            }
            #expect(left == 0)
        }
    }

    @Test(arguments: TestEngines.all)
    func sheRedeemsInTheWebAppAfterAskingAndSeesTheCodeOnceSent(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.rewards.path, form: Self.reward(stock: "")).status == .seeOther)
            let reward = try #require(
                try await portal.database.read { db in
                    try await RewardsRepository(program: Program.perinatalCommunity.id).rewards(includingRetired: false, on: db)
                }.first
            )
            let (browser, memberID, _) = try await MemberAppPagesTests.signedInMember(portal)
            var her = browser
            let poor = try await her.get(SiteURL.appMemberRewards.path)
            #expect(poor.text.contains("You need") && !poor.text.contains(SiteURL.appMemberReward(reward.id).path))
            // Signing in earned her the day's point for using the app: 60 more is what this gift card costs, plus 10.
            let earned = try await portal.database.read { db in try await PointsLedger().allTimeBalance(of: .member(memberID), on: db) }
            try await Self.give(70 - earned, to: memberID, portal)
            let page = try await her.get(SiteURL.appMemberRewards.path)
            #expect(page.text.contains(SiteURL.appMemberReward(reward.id).path) && page.text.contains("You have not redeemed a reward yet."))
            let confirm = try await her.get(SiteURL.appMemberReward(reward.id).path)
            #expect(confirm.text.contains("Redeem Grocery gift card?") && confirm.text.contains("Afterwards you will have 10 points"))
            let redeemed = try await her.post(SiteURL.appMemberReward(reward.id).path)
            #expect(redeemed.location == "\(SiteURL.appMemberRewards.path)?redeemed=1")
            let after = try await her.get(try #require(redeemed.location))
            #expect(after.text.contains("Waiting to be sent") && after.text.contains("You have 10 points to spend."))
            // Again, with too few points: told why on the same page, nothing spent.
            let refused = try await her.post(SiteURL.appMemberReward(reward.id).path)
            #expect(refused.status == .conflict && refused.text.contains("This reward costs 60 points and you have 10."))

            let redemption = try #require(
                try await portal.database.read { db in
                    try await RewardsRepository(program: Program.perinatalCommunity.id).redemptions(of: .member(memberID), limit: 5, on: db)
                }.first
            )
            #expect(try await admin.post(SiteURL.rewardRedemptionSent(redemption.id).path, form: [("code", "CARD-77")]).status == .seeOther)
            let sent = try await her.get(SiteURL.appMemberRewards.path)
            #expect(sent.text.contains("CARD-77") && sent.text.contains("Sent "))
            #expect(try await her.get(SiteURL.appMemberReward(999_999).path).status == .notFound)
        }
    }

    /// Migration 60 moves the pharmacy's catalogue and vouchers into the shared tables: every row keeps its
    /// id and code, and the next redemption takes a new id after them.
    @Test(arguments: TestEngines.all)
    func thePharmacysVouchersKeepTheirIdsAndCodesInTheSharedTables(engine: Database.Engine) async throws {
        let url = try await TestDatabase.emptyDatabaseURL(engine)
        let database = try Database(url: url, logger: TestDatabase.logger)
        try await database.whileRunning {
            try await Migrator(database: database, migrations: SchemaHistory.migrations.filter { $0.version < 60 }, logger: TestDatabase.logger)
                .migrate()
            try await database.write { db in
                try await db.raw(
                    """
                    INSERT INTO pharmacy_customers (id, email, email_key, password_hash, first_name, last_name, date_of_birth, phone, address_line1,
                        address_line2, city, state, zip_code, status, created_at, updated_at)
                    VALUES (7, 'a@example.org', 'a@example.org', 'x', 'Ada', 'Byrne', '1950-04-23', '6155550134', '1 Main St', '', 'Nashville', 'TN', '37203', 'active', 0, 0)
                    """
                ).run()
                try await db.raw(
                    "INSERT INTO pharmacy_rewards (id, title, points_cost, cashier_gives, created_at) VALUES (3, '$5 off', 50, '$5 off any purchase', 0)"
                ).run()
                try await db.raw(
                    """
                    INSERT INTO pharmacy_vouchers (id, customer_id, reward_id, code, points_cost, redeemed_at, activated_at, expires_at, used_at)
                    VALUES (41, 7, 3, 'ABCD2345', 50, 1000, 2000, 302000, 3000)
                    """
                ).run()
            }
            try await Migrator(database: database, logger: TestDatabase.logger).migrate()
            let repository = RewardsRepository(program: Program.pharmacy.id)
            let (reward, voucher, next) = try await database.write { db in
                let reward = try await repository.reward(id: 3, on: db)
                let voucher = try await repository.redemption(code: "ABCD2345", on: db)
                let next = try await repository.addRedemption(by: .pharmacyCustomer(7), of: reward!, code: "NEXT2345", now: Date(), on: db)
                return (reward, voucher, next)
            }
            #expect(reward?.title == "$5 off" && reward?.gives == "$5 off any purchase" && reward?.handedOver == .voucher && reward?.stock == nil)
            #expect(voucher?.id == 41 && voucher?.account == .pharmacyCustomer(7) && voucher?.usedAt != nil && voucher?.pointsCost == 50)
            #expect((next?.id ?? 0) > 41)
            #expect(
                try await database.read { db in try await RewardsRepository(program: Program.perinatalCommunity.id).reward(id: 3, on: db) } == nil,
                "the pharmacy's reward is not the members'"
            )
        }
        try await TestDatabase.drop(url)
    }
}

@Suite struct RewardStockTests {
    /// The last one, asked for by two members at once: one gets it, the other is told none is left and
    /// keeps her points; the stock never goes below zero.
    @Test(arguments: TestEngines.all)
    func twoRedemptionsOfTheLastOneAtOnceGiveItToOneOnly(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.rewards.path, form: RewardsTests.reward(stock: "1")).status == .seeOther)
            let repository = RewardsRepository(program: Program.perinatalCommunity.id)
            let reward = try #require(try await portal.database.read { db in try await repository.rewards(includingRetired: false, on: db) }.first)
            let (wren, wrenMember) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, larkMember) = try await AppClient.registered(portal, pseudonym: "Lark")
            for member in [wrenMember, larkMember] { try await RewardsTests.give(100, to: Int64(try #require(member["id"] as? Int)), portal) }
            async let first = wren.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": reward.id])
            async let second = lark.send(.post, SiteURL.apiRewardRedemptions.path, json: ["reward_id": reward.id])
            let answers = try await [first, second]
            #expect(answers.map(\.status).sorted { $0.code < $1.code } == [.created, .conflict])
            #expect(answers.first { $0.status == .conflict }?.errorCode == "out_of_stock")
            #expect(try await portal.database.read { db in try await repository.reward(id: reward.id, on: db) }?.stock == 0)
            var left: [Int] = []
            for app in [wren, lark] { left.append(try #require(try await app.get(SiteURL.apiRewards.path).object["points"] as? Int)) }
            left.sort()
            #expect(left.count == 2 && left[0] < 100 && left[1] >= 100, "only the one who got it spent her points: \(left)")
        }
    }
}
