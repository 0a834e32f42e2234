// Names of the databases one test run creates. The run id is set once by the global setup (its
// process id) and inherited by the test workers, so parallel runs on one server stay apart.
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
    /** A copy of FIXTURE with rows made for each "Needs attention" rule (test/attention.test.ts adds them). */
    attention: `rider_equipment_test_attention_${run}`,
    /** A copy of FIXTURE where supervisors mark rows of "Needs attention" handled (test/attention-handling.test.ts). */
    handling: `rider_equipment_test_handling_${run}`,
    /**
     * A copy of FIXTURE for test/list-keys-kept.test.ts, whose rolled-back changes (truncates, riders
     * moved) would otherwise lock the rows test/attention-kept.test.ts changes on FIXTURE at the same time.
     */
    listKeys: `rider_equipment_test_list_keys_${run}`,
  };
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
