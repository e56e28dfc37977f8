/** The package tier's shared build (made by test/setup/package-build.ts), for its tests. */
import { join } from "node:path";

/** Names the copy of the checkout in which the package tier's global setup built the package. */
export const PACKAGE_BUILD_ENV = "OCB_TEST_PACKAGE_BUILD";

/** The built copy of the checkout: its `dist/` is what `npm run build` makes. */
export function packageBuild(): { checkout: string; dist: string } {
  const checkout = process.env[PACKAGE_BUILD_ENV];
  if (checkout === undefined || checkout === "") {
    throw new Error(
      `${PACKAGE_BUILD_ENV} is not set: run this test in the package tier (npx vitest run --project package …), whose global setup builds the package`,
    );
  }
  return { checkout, dist: join(checkout, "dist") };
}
