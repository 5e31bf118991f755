import PortalPlatform
import SQLKit

/// `patients.adherence_version`, which the database raises whenever any of the patient's adherence
/// logs or prescriptions is added, changed or removed, whatever code does it. Figures worked out
/// from those rows can be kept under the version they were worked out at (`RecentAdherenceCache`)
/// and are never shown once it has moved on, on any server.
struct AddPatientAdherenceVersion: Migration {
    let version = 12
    let name = "AddPatientAdherenceVersion"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.alter(table: "patients").column("adherence_version", type: .bigint, .notNull, .default(0)).run()
        switch engine {
        case .sqlite:
            for table in ["adherence_logs", "prescriptions"] {
                try await db.raw(
                    """
                    CREATE TRIGGER \(ident: table + "_added") AFTER INSERT ON \(ident: table)
                    BEGIN UPDATE patients SET adherence_version = adherence_version + 1 WHERE id = NEW.patient_id; END
                    """
                ).run()
                try await db.raw(
                    """
                    CREATE TRIGGER \(ident: table + "_changed") AFTER UPDATE ON \(ident: table)
                    BEGIN UPDATE patients SET adherence_version = adherence_version + 1 WHERE id IN (OLD.patient_id, NEW.patient_id); END
                    """
                ).run()
                try await db.raw(
                    """
                    CREATE TRIGGER \(ident: table + "_removed") AFTER DELETE ON \(ident: table)
                    BEGIN UPDATE patients SET adherence_version = adherence_version + 1 WHERE id = OLD.patient_id; END
                    """
                ).run()
            }
        case .postgres:
            try await db.raw(
                """
                CREATE FUNCTION patient_adherence_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP IN ('UPDATE', 'DELETE') THEN
                        UPDATE patients SET adherence_version = adherence_version + 1 WHERE id = OLD.patient_id;
                    END IF;
                    IF TG_OP IN ('INSERT', 'UPDATE') THEN
                        UPDATE patients SET adherence_version = adherence_version + 1 WHERE id = NEW.patient_id;
                    END IF;
                    RETURN NULL;
                END $$
                """
            ).run()
            for table in ["adherence_logs", "prescriptions"] {
                try await db.raw(
                    """
                    CREATE TRIGGER \(ident: table + "_changed") AFTER INSERT OR UPDATE OR DELETE ON \(ident: table)
                    FOR EACH ROW EXECUTE FUNCTION patient_adherence_changed()
                    """
                ).run()
            }
        }
    }
}
