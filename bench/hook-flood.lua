-- wrk script of bench/hook-flood.ts: POSTs one hook at a fixed rate, open loop, from one thread.
-- `wrk -t1 -c<connections> -d<seconds>s -s hook-flood.lua <hook url> -- <rate> <token>`; a rate of
-- 0 sends each connection's next request as soon as its answer is in (closed loop, as fast as it goes).
-- Every request has its own slot on one schedule (start + n / rate), whatever answers come back;
-- a connection whose slot has passed sends at once, so a stalled server gets the backlog as the
-- connections free up (at most one request in flight per connection). Prints one JSON line.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } neoflow_timespec;
int clock_gettime(int clock, neoflow_timespec *at);
]]
local at = ffi.new("neoflow_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, at) -- CLOCK_MONOTONIC
  return tonumber(at.tv_sec) * 1000 + tonumber(at.tv_nsec) / 1e6
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  rate = tonumber(args[1])
  interval = rate > 0 and 1000 / rate or 0
  wrk.method = "POST"
  wrk.body = '{"source":"bench:hook-flood"}'
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. args[2]
  accepted, limited, other, first, last = 0, 0, 0, nil, nil
end

function delay()
  if interval == 0 then return 0 end
  local now = now_ms()
  if next_at == nil then next_at = now end
  next_at = next_at + interval
  return math.max(0, math.floor(next_at - now))
end

function response(status, headers, body)
  local now = now_ms()
  first = first or now
  last = now
  if status == 202 then
    accepted = accepted + 1
  elseif status == 429 then
    limited = limited + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local t = threads[1]
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"accepted":%d,"limited":%d,"other":%d,' ..
    '"answeredMs":%.1f,"errors":%d,"latencyUs":{"p50":%d,"p99":%d,"max":%d}}\n',
    summary.requests, summary.duration, t:get("accepted"), t:get("limited"), t:get("other"),
    (t:get("last") or 0) - (t:get("first") or 0),
    errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
