import { AjvCompiler } from "@fastify/ajv-compiler";
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyInstance, FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions } from "fastify";
import { formats } from "./formats.js";

/** Fastify's `ajv` option: how request bodies are checked against the routes' JSON Schemas. */
export const ajvOptions = {
  customOptions: {
    allErrors: true,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    verbose: true,
    // No check of each route schema against JSON Schema's meta-schema, whose own validator Ajv
    // would compile first (some 25 ms): compiling a schema still refuses a keyword it does not know
    // or a value of the wrong type (`required: "name"`), which stops the start for your own routes.
    validateSchema: false,
    formats,
  },
  // Fastify adds ajv-formats after the options above, whose email, uuid and date-time would
  // replace the contract's: put the contract's back.
  onCreate: (ajv) => {
    for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  },
} satisfies FastifyServerOptions["ajv"];

/**
 * Fastify's own compilers (Ajv with ajvOptions, fast-json-stringify) for the routes of `app`'s
 * context, each route's validator and serializers compiled the first time the route is called
 * instead of at start: a start pays for no route it has not served (a server of 200 tables starts
 * in half the time), and what a route then runs is the very function Fastify would have compiled.
 * The generated routes' schemas are tablegen's, compiled by its tests; your own routes
 * (src/custom/routes.ts) are compiled as Fastify compiles them, at start.
 */
export function compileOnFirstUse(app: FastifyInstance): void {
  // What Fastify builds for a context of its own: the compilers take the route's definition, not
  // the bare schema their packages' types name.
  const compileValidator = AjvCompiler()({}, ajvOptions) as unknown as FastifySchemaCompiler<unknown>;
  const compileSerializer = SerializerSelector()() as FastifySerializerCompiler<unknown>;
  app.setValidatorCompiler((route) => {
    let validate: Validate | undefined;
    const firstUse: Validate = (data) => {
      validate ??= compileValidator(route);
      const valid = validate(data);
      firstUse.errors = validate.errors;
      return valid;
    };
    return firstUse;
  });
  app.setSerializerCompiler((route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data) => (serialize ??= compileSerializer(route))(data);
  });
}

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;
