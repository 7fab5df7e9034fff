/** The rulebook of roles (README.md): pure rules that `/allowed` and the access graph both call. */
export * from './names.js';
export * from './roles.js';
export * from './derivations.js';
export * from './groups.js';
