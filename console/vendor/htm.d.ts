// Types of the served vendor/htm.js (node_modules/htm/dist/htm.mjs): tagged templates bound to an `h`.
// Template values are not typed through the template (htm parses them at run time).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const htm: {
  bind<Result>(
    h: (type: any, props: Record<string, any> | null, ...children: any[]) => Result,
  ): (strings: TemplateStringsArray, ...values: any[]) => Result | Result[];
};
export default htm;
