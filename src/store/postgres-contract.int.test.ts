/** The store contract (test/support/store-contract.ts) on Postgres: a fresh database per test. */

import { describeStoreContract } from "../../test/support/store-contract.js";
import { usePostgres } from "../../test/support/use-postgres.js";
import { PostgresStore } from "./postgres-store.js";

const postgres = usePostgres();

describeStoreContract("PostgresStore", async () =>
  PostgresStore.open(await postgres.freshDatabase()),
);
