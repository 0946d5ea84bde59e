/**
 * @sluice/codegen — turns a Sluice API's AsyncAPI document into runnable clients.
 * Everything public is exported here.
 */
export { generateClient, TEMPLATES_DIR } from "./generate.js";
export type { GeneratedFile } from "./generate.js";
export { languages, languageInfo } from "./languages.js";
export type { LanguageId, LanguageInfo } from "./languages.js";
export { snippet } from "./snippet.js";
export { buildModel, channelByAddress, fillPath, namesOf } from "./model.js";
export type { ApiModel, ChannelModel, ChannelParameter, Names, PayloadFormat } from "./model.js";
export { generatedBy, header } from "./header.js";
export type { CommentStyle } from "./header.js";
export type { TemplateContext } from "./context.js";
