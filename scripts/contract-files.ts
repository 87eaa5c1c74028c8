/**
 * Every file of `contract/` the package ships, by path under `dist/contract/`: the AsyncAPI 3
 * document and the JSON Schema 2020-12 files. `contract/vectors/` belongs to the conformance kit
 * and is written by its own script.
 */
import { asyncApiDocument } from './contract-files.asyncapi.js';
import { type JsonSchema, jsonSchemaFiles } from './contract-files.schemas.js';

export function contractFiles(): Record<string, JsonSchema> {
  const files: Record<string, JsonSchema> = { 'asyncapi.json': asyncApiDocument() };
  for (const [name, schema] of Object.entries(jsonSchemaFiles())) files[`schemas/${name}`] = schema;
  return files;
}
