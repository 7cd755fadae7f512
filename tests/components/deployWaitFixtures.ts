/** What the tests of `pulumi up`'s waits share: the SDK's mock runtime, and a group as the program gives one. */
import * as pulumi from "@pulumi/pulumi";

/** The SDK's mock runtime, as a preview (`preview`) or as `pulumi up`; resources echo their inputs. */
export async function mockRuntime(preview: boolean): Promise<void> {
  await pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
    "project",
    "stack",
    preview,
  );
}

/** A group as NodeLaunchTemplate gives it: a resource, and its name once it is in place. */
export const groupInPlace = (name: string) =>
  Object.assign(new pulumi.ComponentResource("test:index:Group", name), { groupInPlace: pulumi.output(name) });
