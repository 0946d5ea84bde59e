// @asyncapi/generator ships no type declarations; generate.ts types the little it uses.
declare module "@asyncapi/generator";
