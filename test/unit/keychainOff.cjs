// The unit tier keeps input values in the store's 0600 files: a test's temp DSH home must not put
// entries in the keychain of the machine it runs on. The keychain tests turn it back on for the
// processes they start (test/unit/core/node/keychain*.test.ts).
process.env.DSH_BRIDGE_KEYCHAIN ??= 'off';
