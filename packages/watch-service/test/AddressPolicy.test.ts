/**
 * AddressPolicy: every refused class of address (IPv4, IPv6, IPv4-mapped), public addresses
 * accepted, URLs refused for their scheme, credentials, host or what the host resolves to (with
 * an injected lookup, so no test needs the network; the system's resolver with the machine's own
 * name, which it answers without one), and the connection-time lookup guard.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { LookupAddress } from "node:dns"
import * as dns from "node:dns/promises"
import * as os from "node:os"
import * as AddressPolicy from "../src/delivery/AddressPolicy.js"

const refused = [
  "0.0.0.0", "0.1.2.3", // this network
  "127.0.0.1", "127.255.0.9", // loopback
  "10.0.0.5", "10.255.255.255", // private
  "172.16.0.1", "172.31.255.254",
  "192.168.1.1",
  "169.254.0.1", "169.254.169.254", // link-local, cloud metadata
  "100.64.0.1", "100.127.255.255", // carrier-grade NAT
  "::", "::1", "0:0:0:0:0:0:0:1", "[::1]",
  "fc00::1", "fd12:3456::1", "fd00:ec2::254", // unique local, AWS metadata over IPv6
  "fe80::1", "febf::1", "fe80::1%eth0", // link-local
  "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.5", "::ffff:a9fe:a9fe", "::ffff:192.168.0.1", // IPv4-mapped
  "64:ff9b::a00:1", "64:ff9b::10.0.0.1", "64:ff9b::7f00:1", "64:FF9B:0:0:0:0:a9fe:a9fe", "64:ff9b::192.168.1.1", "64:ff9b::", // NAT64 to private IPv4
  "::2", "::10.0.0.1", // IPv4-compatible (deprecated)
  "192.0.0.1", "198.18.0.1", "198.19.255.255", // IETF assignments, benchmarking
  "224.0.0.1", "239.255.255.250", "ff02::1", // multicast
  "240.0.0.1", "255.255.255.255" // reserved, broadcast
]
const allowed = [
  "8.8.8.8", "1.1.1.1", "93.184.215.14", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.1.1", "11.0.0.1",
  "2606:4700:4700::1111", "2001:4860:4860::8888", "fbff::1", "fec0::1", "::ffff:8.8.8.8",
  "64:ff9b::808:808", "64:ff9b::8.8.4.4", // NAT64 to public IPv4
  "64:ff9b::93.184.215.14", "64:ff9b::5db8:d70e", // NAT64 to a public IPv4 of multi-digit bytes, dotted and in hex
  "64:ff9a::a00:1", "65:ff9b::a00:1", "64:ff9b:1::a00:1", // not the NAT64 prefix 64:ff9b::/96, so not read as 10.0.0.1
  "192.0.1.1", "198.17.255.255", "198.20.0.1", "223.255.255.255"
]

type Addresses = ReadonlyArray<{ readonly address: string; readonly family: number }>
/** A lookup that answers from `table` and rejects (like ENOTFOUND) for other names, recording the names asked. */
const lookupFrom = (table: Record<string, Addresses>, asked: Array<string> = []): AddressPolicy.Resolve => (host) => {
  asked.push(host)
  const addresses = table[host]
  return addresses === undefined ? Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" })) : Promise.resolve(addresses)
}
const table: Record<string, Addresses> = {
  "hooks.example.com": [{ address: "93.184.215.14", family: 4 }, { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 }],
  "mixed.example.com": [{ address: "93.184.215.14", family: 4 }, { address: "10.0.0.7", family: 4 }],
  "rebind.example.com": [{ address: "169.254.169.254", family: 4 }],
  "v6private.example.com": [{ address: "fd00:ec2::254", family: 6 }],
  "empty.example.com": []
}

/** The `UnsafeWebhookUrl` of `url`, asserting that it is one and that its reason mentions `words`. */
const refusal = (url: string, words: string, options: { readonly allowPrivate: boolean; readonly lookup?: AddressPolicy.Resolve } = { allowPrivate: false }) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(AddressPolicy.checkUrl(url, { lookup: lookupFrom(table), ...options }))
    assert.strictEqual(error._tag, "UnsafeWebhookUrl")
    assert.include(error.reason, words, `${url}: ${error.reason}`)
    return error
  })

/** Calls `guardedLookup(allowPrivate)` as node does, with `all`. */
const guarded = (allowPrivate: boolean, hostname: string, all: boolean) =>
  Effect.callback<{ readonly error: NodeJS.ErrnoException | null; readonly address: string | Array<LookupAddress>; readonly family: number | undefined }>((resume) => {
    AddressPolicy.guardedLookup(allowPrivate)(hostname, { all }, (error, address, family) => resume(Effect.succeed({ error, address, family })))
  })

describe("AddressPolicy.isPrivateAddress", () => {
  it("refuses each private class, IPv4, IPv6 and IPv4-mapped", () => {
    for (const ip of refused) assert.isTrue(AddressPolicy.isPrivateAddress(ip), ip)
  })
  it("accepts public addresses, their neighbours included", () => {
    for (const ip of allowed) assert.isFalse(AddressPolicy.isPrivateAddress(ip), ip)
  })
  it("a string that is not an address is not one", () => {
    for (const text of ["", "localhost", "example.com", "999.1.1.1"]) assert.isFalse(AddressPolicy.isPrivateAddress(text), text)
  })
})

describe("AddressPolicy.checkUrl", () => {
  it.effect("refuses a private IP literal in a URL, v4, v6 and mapped, naming it and the flag", () =>
    Effect.gen(function*() {
      for (const host of ["127.0.0.1", "10.0.0.5", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "[::1]", "[fd00:ec2::254]", "[fe80::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::]"]) {
        const error = yield* refusal(`http://${host}:8080/hook`, "is a private address")
        assert.include(error.reason, "--allow-private-webhooks")
        assert.strictEqual(error.url, new URL(`http://${host}:8080/hook`).href)
      }
      // Other spellings of 127.0.0.1, which the URL parser normalises.
      for (const host of ["2130706433", "0x7f.1", "127.1", "0177.0.0.1"]) yield* refusal(`http://${host}/`, "the host 127.0.0.1 is a private address")
    }))

  it.effect("accepts public IP literals and a name whose every address is public", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const lookup = lookupFrom(table, asked)
      for (const url of ["https://8.8.8.8/hook", "http://[2606:4700:4700::1111]:8443/x", "https://hooks.example.com/chainquery?token=abc"]) {
        const parsed = yield* AddressPolicy.checkUrl(url, { allowPrivate: false, lookup })
        assert.strictEqual(parsed.href, new URL(url).href)
      }
      assert.deepStrictEqual(asked, ["hooks.example.com"], "IP literals are not looked up")
    }))

  it.effect("refuses a name with any private address, one that does not resolve, and localhost without asking", () =>
    Effect.gen(function*() {
      yield* refusal("https://mixed.example.com/hook", "the host mixed.example.com resolves to a private address")
      yield* refusal("https://rebind.example.com/hook", "resolves to a private address")
      yield* refusal("https://v6private.example.com/hook", "resolves to a private address")
      yield* refusal("https://nowhere.example.com/hook", "the host nowhere.example.com does not resolve")
      yield* refusal("https://empty.example.com/hook", "does not resolve")
      const asked: Array<string> = []
      for (const url of ["http://localhost:3000/", "http://LOCALHOST./", "http://api.localhost/"]) {
        yield* refusal(url, "is the local machine", { allowPrivate: false, lookup: lookupFrom(table, asked) })
      }
      assert.deepStrictEqual(asked, [])
    }))

  it.effect("without a lookup given, asks the system's resolver for every address of the name", () =>
    Effect.gen(function*() {
      // The machine's own name resolves without the network (hosts file, or the resolver's own
      // answer for it), most often to a loopback or private address; what the test expects is
      // what the system answers here.
      const name = os.hostname()
      const addresses = yield* Effect.promise(() => dns.lookup(name, { all: true }).catch(() => []))
      const outcome = yield* AddressPolicy.checkUrl(`https://${name}/hook`, { allowPrivate: false }).pipe(
        Effect.map(() => "accepted"),
        Effect.catchTag("UnsafeWebhookUrl", (error) => Effect.succeed(error.reason))
      )
      if (addresses.length === 0) assert.include(outcome, "does not resolve")
      else if (addresses.some(({ address }) => AddressPolicy.isPrivateAddress(address))) assert.include(outcome, "resolves to a private address")
      else assert.strictEqual(outcome, "accepted")
    }))

  it.effect("a lookup with no answer in 5 seconds is a name that does not resolve", () =>
    Effect.gen(function*() {
      const checking = yield* Effect.forkChild(
        AddressPolicy.checkUrl("https://silent.example.com/hook", { allowPrivate: false, lookup: () => new Promise(() => {}) }).pipe(Effect.flip)
      )
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(checking)
      assert.include(error.reason, "the host silent.example.com does not resolve")
    }))

  it.effect("refuses what is not an absolute http(s) URL", () =>
    Effect.gen(function*() {
      for (const url of ["ftp://example.com/file", "file:///etc/passwd", "javascript:alert(1)", "gopher://hooks.example.com/"]) {
        const error = yield* refusal(url, "is not supported (only http: and https: URLs are)")
        assert.strictEqual(error.url, url)
      }
      for (const url of ["", "hooks.example.com/path", "/relative", "http://"]) yield* refusal(url, "is not an absolute URL")
    }))

  it.effect("refuses credentials in the URL, without repeating them", () =>
    Effect.gen(function*() {
      for (const url of ["https://user:hunter2@hooks.example.com/", "https://user@hooks.example.com/", "https://:hunter2@hooks.example.com/"]) {
        const error = yield* refusal(url, "credentials in the URL", { allowPrivate: true })
        assert.strictEqual(error.url, "https://hooks.example.com/")
        assert.notInclude(`${error.message} ${JSON.stringify(error)}`, "hunter2")
      }
    }))

  it.effect("with allowPrivate, private addresses and localhost are accepted without a lookup", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      for (const url of ["http://127.0.0.1:8080/", "http://[::1]/", "http://169.254.169.254/latest", "http://localhost:3000/", "http://mixed.example.com/"]) {
        const parsed = yield* AddressPolicy.checkUrl(url, { allowPrivate: true, lookup: lookupFrom(table, asked) })
        assert.strictEqual(parsed.href, new URL(url).href)
      }
      assert.deepStrictEqual(asked, [])
      yield* refusal("ftp://127.0.0.1/", "is not supported", { allowPrivate: true })
    }))
})

describe("AddressPolicy.guardedLookup", () => {
  it.effect("fails with EUNSAFEADDRESS for a name or literal that resolves to a private address, with all true or false", () =>
    Effect.gen(function*() {
      for (const all of [true, false]) {
        for (const host of ["localhost", "127.0.0.1", "10.1.2.3", "::1", "::ffff:169.254.169.254"]) {
          const { error } = yield* guarded(false, host, all)
          assert.strictEqual(error?.code, "EUNSAFEADDRESS", `${host}, all: ${all}`)
          assert.include(error?.message, "--allow-private-webhooks")
        }
      }
    }))

  it.effect("resolves a public address in the shape node asks for, and private ones when allowed", () =>
    Effect.gen(function*() {
      const one = yield* guarded(false, "8.8.8.8", false)
      assert.deepStrictEqual(one, { error: null, address: "8.8.8.8", family: 4 })
      const list = yield* guarded(false, "2606:4700:4700::1111", true)
      assert.strictEqual(list.error, null)
      assert.deepStrictEqual(list.address, [{ address: "2606:4700:4700::1111", family: 6 }])
      const local = yield* guarded(true, "localhost", true)
      assert.strictEqual(local.error, null)
      assert.isTrue((local.address as Array<LookupAddress>).some(({ address }) => address === "127.0.0.1" || address === "::1"))
      const loopback = yield* guarded(true, "127.0.0.1", false)
      assert.deepStrictEqual(loopback, { error: null, address: "127.0.0.1", family: 4 })
    }))

  it.effect("passes a resolution failure on", () =>
    Effect.gen(function*() {
      const { error } = yield* guarded(false, "name.invalid", true)
      assert.isNotNull(error)
      assert.notStrictEqual(error?.code, "EUNSAFEADDRESS")
    }))
})
