-- wrk script of benchmarks/bench_load.py: house-game rounds, one account per connection.
--
-- bench_load.py runs wrk with as many threads as connections, so that each wrk thread
-- (its own Lua state) drives exactly one connection and so one account: no two requests
-- in flight ever share an account, and every answer is booked to the account that sent
-- it.  The environment says what to do:
--
--   CARDROOM_WRK_ACCOUNTS  a file of accounts, one a line:
--                          "game<TAB>cookie<TAB>csrf<TAB>body" (the body: the round's bets)
--   CARDROOM_WRK_MODE      "rounds" (POST /api/games/GAME/rounds) or "ceiling"
--                          (GET /api/games, the same connections with no database)
--   CARDROOM_WRK_OUT       the file done() writes: one line per account, then the
--                          latency distribution
--   CARDROOM_WRK_RATE      (optional) requests a second each connection offers: delay()
--                          paces it to a fixed schedule, the first request at a random
--                          moment of the first period (the connections out of step); a
--                          request whose moment has passed (the answer before it came
--                          late) goes at once, is counted "late", and the schedule starts
--                          again from it, with no burst to catch up.  Unset or 0: as fast
--                          as the answers come (the saturated run).
--
-- Each thread counts its answers by status, and for each 201 adds the round's
-- "total_net" (an exact decimal string) to its account's net in integer cents; it keeps
-- the newest round id it saw, so that the Python side can find a round that was still
-- in flight when wrk stopped.  ("sent" counts the calls of request(): the first thread's
-- is one more than it sent, since wrk calls request() once to check the script.)

local threads = {}
local accounts = nil

local function read_accounts()
  local path = os.getenv("CARDROOM_WRK_ACCOUNTS")
  local found = {}
  for line in io.lines(path) do
    local game, cookie, csrf, body = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t([^\t]+)$")
    if game then
      found[#found + 1] = { game = game, cookie = cookie, csrf = csrf, body = body }
    end
  end
  return found
end

-- (in the main Lua state, once per thread, before the threads start)
function setup(thread)
  if accounts == nil then
    accounts = read_accounts()
  end
  local n = #threads + 1
  local account = accounts[(n - 1) % #accounts + 1]
  thread:set("account_index", n - 1)
  thread:set("game", account.game)
  thread:set("cookie", account.cookie)
  thread:set("csrf", account.csrf)
  thread:set("body", account.body)
  threads[n] = thread
end

-- (in each thread's Lua state, with the globals setup() gave it)
local req = nil
local rate = tonumber(os.getenv("CARDROOM_WRK_RATE") or "") or 0
sent = 0
late = 0
answers = 0
net_cents = 0
rounds = 0
last_round = 0
unparsed = 0
statuses = {}

function init(args)
  local mode = os.getenv("CARDROOM_WRK_MODE") or "rounds"
  if mode == "ceiling" then
    req = wrk.format("GET", "/api/games", { ["Cookie"] = "cardroom_session=" .. cookie })
  else
    req = wrk.format("POST", "/api/games/" .. game .. "/rounds", {
      ["Content-Type"] = "application/json",
      ["Cookie"] = "cardroom_session=" .. cookie,
      ["X-CSRF-Token"] = csrf,
    }, body)
  end
end

function request()
  sent = sent + 1
  return req
end

if rate > 0 then
  -- wrk is built with LuaJIT: its FFI reads the monotonic clock (os.clock is CPU time)
  local ffi = require("ffi")
  ffi.cdef([[
    typedef struct { long tv_sec; long tv_nsec; } cardroom_timespec;
    int clock_gettime(int clock, cardroom_timespec *now);
  ]])
  local clock = ffi.new("cardroom_timespec")
  local function now_ms()
    ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
    return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
  end
  local period = 1000 / rate
  local due = nil

  -- (called by wrk before each request: how many ms to wait before sending it)
  function delay()
    local now = now_ms()
    if due == nil then
      math.randomseed(account_index * 7919 + os.time())
      due = now + math.random() * period
    else
      due = due + period
      if due < now then
        late = late + 1
        due = now
      end
    end
    return math.floor(due - now)
  end
end

-- "-0.03" -> -3, "19.5" -> 1950, "10" -> 1000: exact, in integer cents (or nil)
local function cents(text)
  local sign, units, fraction = text:match("^(-?)(%d+)%.?(%d*)$")
  if units == nil or #fraction > 2 then
    return nil
  end
  fraction = fraction .. string.rep("0", 2 - #fraction)
  local value = tonumber(units) * 100 + tonumber(fraction)
  if sign == "-" then
    value = -value
  end
  return value
end

function response(status, headers, body)
  answers = answers + 1
  statuses[status] = (statuses[status] or 0) + 1
  if status == 201 then
    local net = body:match('"total_net":"([^"]*)"')
    local value = net and cents(net)
    -- the round's id: the first "id" key (the round's keys come before its events')
    local id = tonumber(body:match('[{,]"id":(%d+)'))
    if value == nil or id == nil then
      unparsed = unparsed + 1
    else
      rounds = rounds + 1
      net_cents = net_cents + value
      if id > last_round then
        last_round = id
      end
    end
  end
end

-- (in the main Lua state, after the threads stopped)
function done(summary, latency, requests)
  local out = assert(io.open(os.getenv("CARDROOM_WRK_OUT"), "w"))
  for _, thread in ipairs(threads) do
    local codes = {}
    for status, count in pairs(thread:get("statuses")) do
      codes[#codes + 1] = string.format("%d:%d", status, count)
    end
    out:write(string.format(
      "account %d sent %d answers %d rounds %d net_cents %d last_round %d unparsed %d late %d statuses %s\n",
      thread:get("account_index"), thread:get("sent"), thread:get("answers"),
      thread:get("rounds"), thread:get("net_cents"), thread:get("last_round"),
      thread:get("unparsed"), thread:get("late"), table.concat(codes, ",")))
  end
  out:write(string.format("summary duration_us %d requests %d bytes %d\n",
    summary.duration, summary.requests, summary.bytes))
  local e = summary.errors
  out:write(string.format("errors connect %d read %d write %d status %d timeout %d\n",
    e.connect, e.read, e.write, e.status, e.timeout))
  out:write(string.format("latency_us mean %.1f stdev %.1f min %d max %d p50 %d p90 %d p95 %d p99 %d p999 %d\n",
    latency.mean, latency.stdev, latency.min, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(95),
    latency:percentile(99), latency:percentile(99.9)))
  out:close()
end
