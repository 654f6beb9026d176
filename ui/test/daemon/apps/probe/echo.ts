// probe-echo: what it was asked, so a widget sees its call went through.
export default async (args: unknown) => ({ echo: args });
