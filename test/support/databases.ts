// The databases one test run uses, each made on first use by the test file that asks for it
// (useDatabase): a copy of a template database (test/support/templates.ts), never built from scratch.
// The run id is set once by the global setup (its process id) and inherited by the test workers, so
// parallel runs on one server stay apart.
import { copyOfTemplate, type TemplateKind } from './templates';

export function testDatabases() {
  const run = (process.env.TEST_RUN_ID ??= String(process.pid));
  return {
    fixture: `rider_equipment_test_fixture_${run}`,
    demo: `rider_equipment_test_demo_${run}`,
    /** Large enough that one full stream runs for seconds: for clients that hang up mid-answer. */
    large: `rider_equipment_test_large_${run}`,
    /**
     * A copy of LARGE (several 3PLs and 1,024-id blocks) for the kept list data's tests, so that their
     * statements never show in LARGE's transaction counts, which the abandoned-streams tests read.
     */
    largeCopy: `rider_equipment_test_large_copy_${run}`,
    /**
     * A copy of LARGE for test/stream-slow-readers.test.ts, whose streams would otherwise show in the
     * activity test/stream-places.test.ts and test/abandoned-streams.test.ts read.
     */
    slowReaders: `rider_equipment_test_slow_readers_${run}`,
    /** A copy of FIXTURE with rows made for each "Needs attention" rule (test/attention.test.ts adds them). */
    attention: `rider_equipment_test_attention_${run}`,
    /** A copy of FIXTURE where supervisors mark rows of "Needs attention" handled (test/attention-handling.test.ts). */
    handling: `rider_equipment_test_handling_${run}`,
    /** A copy of FIXTURE where supervisors save notes on rows of "Needs attention" (test/attention-handling-notes.test.ts). */
    handlingNotes: `rider_equipment_test_handling_notes_${run}`,
    /** A copy of FIXTURE where supervisors handle and give many rows at once (test/attention-handling-batches.test.ts). */
    handlingBatches: `rider_equipment_test_handling_batches_${run}`,
    /** A copy of FIXTURE for test/check-questioners.test.ts, whose rolled-back writes apply the kept data. */
    questioners: `rider_equipment_test_questioners_${run}`,
    /** A copy of FIXTURE where each rule is handled and undone in turn (test/attention-rules.test.ts). */
    rules: `rider_equipment_test_rules_${run}`,
    /**
     * A copy of FIXTURE for test/list-keys-kept.test.ts, whose rolled-back changes (truncates, riders
     * moved) would otherwise lock the rows test/attention-kept.test.ts changes on FIXTURE at the same time.
     */
    listKeys: `rider_equipment_test_list_keys_${run}`,
    /**
     * A copy of FIXTURE for test/browser/attention-queue.test.ts, whose supervisor marks rows handled
     * between two reads of the queue: on ATTENTION, test/attention.test.ts adds rows at the same time.
     */
    attentionQueue: `rider_equipment_test_attention_queue_${run}`,
    /**
     * A copy of DEMO for test/api-streaming.test.ts, which waits until no statement runs on its database:
     * on DEMO, other files' servers and loops run theirs at the same time.
     */
    streaming: `rider_equipment_test_streaming_${run}`,
    /**
     * A copy of FIXTURE for test/kept-concurrency.test.ts, whose writers commit (a second writer of the same
     * kept rows must wait for a first that commits), and for test/list-zone.test.ts, which commits a new zone.
     */
    committed: `rider_equipment_test_committed_${run}`,
    /** A copy of FIXTURE that test/hardening.test.ts makes refuse changes (default_transaction_read_only). */
    readOnly: `rider_equipment_test_read_only_${run}`,
    /** A copy of FIXTURE whose tables test/admin-budget.test.ts locks, so that a page runs past its budget. */
    budget: `rider_equipment_test_budget_${run}`,
    /** A copy of DEMO for test/attention-item-filter.test.ts, which marks its riders handled. */
    attentionItems: `rider_equipment_test_attention_items_${run}`,
    /**
     * A copy of DEMO for test/admin-csv-head.test.ts, which leaves a download half-way and then reads the
     * activity of its database, as test/admin-csv.test.ts does on DEMO.
     */
    csvHead: `rider_equipment_test_csv_head_${run}`,
    /** A copy of DEMO for test/admin-process-seams.test.ts, whose notes come in pieces through the real listener. */
    seams: `rider_equipment_test_seams_${run}`,
    /** A copy of FIXTURE where supervisors write notes on riders and beside handlings (test/supervisor-notes.test.ts). */
    notes: `rider_equipment_test_notes_${run}`,
    /** A copy of FIXTURE where a check arrives while a supervisor types a note in Chromium (test/browser/notes-kept.test.ts). */
    notesBrowser: `rider_equipment_test_notes_browser_${run}`,
    /** A copy of FIXTURE where a lead gives rows to a colleague, who finds them first (test/attention-given.test.ts). */
    given: `rider_equipment_test_given_${run}`,
    /** A copy of FIXTURE where forms over their limits are sent and nothing is saved (test/form-limits.test.ts). */
    limits: `rider_equipment_test_limits_${run}`,
    /** A copy of FIXTURE where a batch is ticked, confirmed and undone in Chromium (test/browser/batch-at-hand.test.ts). */
    batchBrowser: `rider_equipment_test_batch_browser_${run}`,
    /** A copy of FIXTURE where supervisors choose how the pages look (test/preferences.test.ts, test/browser/dark.test.ts). */
    preferences: `rider_equipment_test_preferences_${run}`,
  };
}

export type Database = keyof ReturnType<typeof testDatabases>;

/** The template each of the run's databases is a copy of. */
const TEMPLATE_OF: Record<Database, TemplateKind> = {
  fixture: 'fixture',
  attention: 'fixture',
  handling: 'fixture',
  handlingNotes: 'fixture',
  handlingBatches: 'fixture',
  rules: 'fixture',
  questioners: 'fixture',
  listKeys: 'fixture',
  attentionQueue: 'fixture',
  demo: 'demo',
  streaming: 'demo',
  committed: 'fixture',
  readOnly: 'fixture',
  budget: 'fixture',
  attentionItems: 'demo',
  csvHead: 'demo',
  seams: 'demo',
  notes: 'fixture',
  notesBrowser: 'fixture',
  given: 'fixture',
  limits: 'fixture',
  batchBrowser: 'fixture',
  preferences: 'fixture',
  large: 'large',
  largeCopy: 'large',
  slowReaders: 'large',
};

const made = new Map<Database, Promise<string>>();

/**
 * The URL of the run's database `database`, made first (from its template) if no test file of the run
 * has made it yet. testApp and testAppWithAuth call it; a test that connects to a database by its name
 * awaits it first.
 */
export function useDatabase(database: Database): Promise<string> {
  let url = made.get(database);
  if (!url) {
    const adminUrl = process.env.TEST_ADMIN_URL!;
    const name = testDatabases()[database];
    url = copyOfTemplate(adminUrl, name, TEMPLATE_OF[database], process.env.TEST_TEMPLATE_HASH!).then(() => databaseUrl(adminUrl, name));
    made.set(database, url);
    url.catch(() => made.delete(database)); // asked again, it is tried again
  }
  return url;
}

/**
 * The role the tests' service connects as: what db/roles/grants.sql gives the production role
 * (rider_equipment_app), under a name of the tests' own, since roles are the whole server's and the
 * server may be one that also serves a real rider_equipment_app. Made by the global setup; the
 * templates' migrations grant it (src/db/migrate.ts), and their copies keep the grants.
 */
export const TEST_APP_ROLE = 'rider_equipment_test_app';
const TEST_APP_PASSWORD = 'rider-equipment-test-app';

/** `url` (a test database's, as its owner) as the tests' service connects to it: as TEST_APP_ROLE. */
export function appUrl(url: string): string {
  const app = new URL(url);
  app.username = TEST_APP_ROLE;
  app.password = TEST_APP_PASSWORD;
  return app.toString();
}

/** Makes TEST_APP_ROLE on the server of `adminUrl` unless it is there (a login with only what grants.sql gives). */
export async function ensureTestAppRole(admin: { query(sql: string): Promise<unknown> }): Promise<void> {
  try {
    await admin.query(
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${TEST_APP_ROLE}') THEN
           CREATE ROLE ${TEST_APP_ROLE} LOGIN PASSWORD '${TEST_APP_PASSWORD}' NOSUPERUSER NOCREATEDB NOCREATEROLE;
         END IF;
       END $$`,
    );
  } catch (error) {
    // Another run made it at the same moment.
    if (!['42710', '23505'].includes((error as { code?: string }).code ?? '')) throw error;
  }
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The same server and credentials, on its maintenance database, to create and drop test databases. */
export function adminUrlFrom(url: string): string {
  return databaseUrl(url, 'postgres');
}
