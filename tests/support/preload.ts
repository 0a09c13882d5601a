// Starts the test run's one Postgres before any test file, so no beforeAll hook waits for initdb.
import { getTestPostgres } from "./postgres";

await getTestPostgres();
