import Foundation
import PortalPlatform
import SQLKit

/// A clearly marked demo pharmacy: customers (names ending "(demo)", addresses at example.invalid),
/// prescriptions, refills at each step, deals, rewards, a redeemed voucher and the front-door beacon.
extension DemoData {
    func seedPharmacy(on db: any SQLDatabase) async throws {
        let repository = PharmacyRepository()
        let ledger = PointsLedger()
        let clock = try await ProgramSettingsRepository().clock(on: db)
        let today = clock.date(of: now)
        let people: [(String, String, String, DeliveryAddress)] = [
            (
                "Margaret", "Holloway (demo)", "1946-03-14",
                DeliveryAddress(line1: "12 Example Lane", line2: "", city: "Portland", state: "OR", zipCode: "97201")
            ),
            ("Walter", "Nguyen (demo)", "1951-09-02", .none),
            (
                "Rosa", "Delgado (demo)", "1958-12-21",
                DeliveryAddress(line1: "400 Demo Avenue", line2: "Apartment 3", city: "Portland", state: "OR", zipCode: "97205")
            )
        ]
        var customers: [Int64] = []
        for (index, (first, last, born, address)) in people.enumerated() {
            let details = PharmacyCustomerDetails(
                firstName: first,
                lastName: last,
                dateOfBirth: born,
                phone: "503-555-01\(10 + index)",
                address: address
            )
            guard
                let id = try await repository.createCustomer(
                    email: "\(first.lowercased()).demo@example.invalid",
                    passwordHash: appPasswordHash,
                    details: details,
                    now: now.addingTimeInterval(-Double(90 - index * 20) * 86_400),
                    on: db
                )
            else { continue }
            customers.append(id)
        }
        guard customers.count == 3 else { return }
        let medications: [(Int64, String, String, String, Int, String)] = [
            (customers[0], "Lisinopril (demo)", "10 mg", "30 tablets", 5, "Dr. Ana Ruiz (demo)"),
            (customers[0], "Atorvastatin (demo)", "20 mg", "30 tablets", 2, "Dr. Ana Ruiz (demo)"),
            (customers[1], "Metformin (demo)", "500 mg", "60 tablets", 3, "Dr. Sam Okafor (demo)"),
            (customers[2], "Levothyroxine (demo)", "50 mcg", "30 tablets", 6, "Dr. Ana Ruiz (demo)"),
            (customers[0], "Vitamin D3 (demo)", "1000 IU", "90 capsules", 4, "Dr. Ana Ruiz (demo)")
        ]
        var prescriptions: [Int64] = []
        for (customer, medication, strength, quantity, refills, prescriber) in medications {
            prescriptions.append(
                try await repository.addPrescription(
                    PharmacyPrescription(
                        id: 0,
                        customerID: customer,
                        medication: medication,
                        strength: strength,
                        quantity: quantity,
                        refillsRemaining: refills,
                        prescriber: prescriber,
                        lastFilled: today.adding(days: -28).iso
                    ),
                    now: now,
                    on: db
                )
            )
        }
        // The queue at each step: two waiting, one being prepared, one ready, one collected.
        let refills: [(Int, Fulfilment, RefillStatus, Double)] = [
            (0, .pickup, .requested, 3), (2, .pickup, .requested, 1.5), (3, .delivery, .preparing, 5), (1, .pickup, .readyForPickup, 26),
            (0, .pickup, .collected, 30 * 24)
        ]
        for (index, fulfilment, status, hoursAgo) in refills {
            let customer = medications[index].0
            let address = fulfilment == .delivery ? people[customers.firstIndex(of: customer) ?? 0].3.text : nil
            let refill = try await repository.addRefill(
                customerID: customer,
                prescriptionID: prescriptions[index],
                fulfilment: fulfilment,
                deliveryAddress: address,
                now: now.addingTimeInterval(-hoursAgo * 3_600),
                on: db
            )
            if status != .requested {
                _ = try await repository.moveRefill(
                    id: refill.id,
                    from: .requested,
                    to: status,
                    reason: nil,
                    now: now.addingTimeInterval(-hoursAgo * 1_800),
                    on: db
                )
            }
        }
        _ = try await repository.addDeal(
            PharmacyDeal(
                id: 0,
                title: "20% off vitamins (demo)",
                description: "Demo deal: 20% off every vitamin and supplement on the shelf by the front door.",
                validFrom: today.adding(days: -3).iso,
                validUntil: today.adding(days: 11).iso
            ),
            now: now,
            on: db
        )
        _ = try await repository.addDeal(
            PharmacyDeal(
                id: 0,
                title: "Free blood pressure check (demo)",
                description: "Demo deal: ask at the counter for a free blood pressure check, any weekday morning.",
                validFrom: today.iso,
                validUntil: today.adding(days: 30).iso
            ),
            now: now,
            on: db
        )
        let fiveOff = try await repository.addReward(title: "$5 off (demo)", pointsCost: 50, cashierGives: "$5 off any purchase", now: now, on: db)
        _ = try await repository.addReward(
            title: "Free reusable bag (demo)",
            pointsCost: 20,
            cashierGives: "One Paulsen's reusable bag",
            now: now,
            on: db
        )
        let beacon =
            try await repository.addBeacon(
                uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D",
                major: 1,
                minor: 1,
                name: "Front door (demo)",
                now: now,
                on: db
            ) ?? 0
        // Visits over the past weeks earned points; Margaret spent some on a voucher she has not activated yet.
        for (customer, days) in [(customers[0], [1, 4, 9, 15, 22, 30, 37, 44]), (customers[1], [2, 12]), (customers[2], [5])] {
            for daysAgo in days {
                let instant = clock.instant(on: today.adding(days: -daysAgo), atMinute: 10 * 60)
                _ = try await repository.recordVisit(customerID: customer, day: today.adding(days: -daysAgo), beaconID: beacon, now: instant, on: db)
                try await ledger.award(
                    PointsAward(
                        reason: Pharmacy.visitReason,
                        reference: today.adding(days: -daysAgo).iso,
                        amount: PharmacyRules.visitPoints,
                        period: .day
                    ),
                    to: .pharmacyCustomer(customer),
                    at: instant,
                    clock: clock,
                    on: db
                )
            }
        }
        if let reward = try await repository.reward(id: fiveOff, on: db) {
            let code = RewardRules.code(dependencies.randomBytes)
            if try await ledger.spend(
                reward.pointsCost,
                reason: RewardRules.spendReason,
                reference: code,
                from: .pharmacyCustomer(customers[0]),
                at: now,
                clock: clock,
                on: db
            ) != nil {
                _ = try await repository.addVoucher(customerID: customers[0], reward: reward, code: code, now: now, on: db)
            }
        }
    }
}
