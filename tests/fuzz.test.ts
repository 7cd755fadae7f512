// Config fuzzing, a few hundred cases (`npm run fuzz` runs thousands).
import { checkPlans, checkValidation } from "./fuzz/properties";

describe("config fuzzing", () => {
  it("validation never throws, accepts valid configs and names only real paths (300 + 300 cases)", () => {
    checkValidation(300);
  });

  it("valid configs plan; invalid ones register no resource (12 + 12 plans)", async () => {
    await checkPlans(12);
  });
});
