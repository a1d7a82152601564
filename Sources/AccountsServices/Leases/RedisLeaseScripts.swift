import AccountsCore

/// The Lua scripts of the Redis lease store. Redis runs each atomically: nothing else happens
/// between its reads and its writes, which is what keeps two holders off one account.
extension RedisLeaseStore {
  /// Lua: `readable(key, longest)`, false when the key is absent or a string of at most
  /// `longest` bytes (what accounts may read), else why not: its type, or 'long'. And
  /// `counter(key)`, a fence counter: 0 when absent, else the number, or nil and why not
  /// ('number' for what is no integer within `LeaseFence.largest`, 'full' at it). Nothing
  /// larger than a record is ever read into the script or its reply.
  static let readableFunctions = """
    local function readable(key, longest)
      local kind = redis.call('TYPE', key)['ok']
      if kind == 'none' then return false end
      if kind ~= 'string' then return kind end
      if redis.call('STRLEN', key) > longest then return 'long' end
      return false
    end
    local function counter(key)
      local why = readable(key, \(String(LeaseFence.largest).count))
      if why then return nil, why == 'long' and 'number' or why end
      local text = redis.call('GET', key)
      if not text then return 0 end
      if not (text == '0' or string.match(text, '^[1-9]%d*$')) or tonumber(text) > \(LeaseFence.largest) then
        return nil, 'number'
      end
      if tonumber(text) == \(LeaseFence.largest) then return nil, 'full' end
      return tonumber(text)
    end
    """

  /// KEYS: per candidate its key and its fence key. ARGV: count, ttl (ms), the fences' floor,
  /// per candidate its value. Takes the first `count` free candidates, or none. A candidate
  /// one of whose keys accounts cannot read (`readableFunctions`: another type, a value
  /// longer than a record, a fence counter that is none or at the largest fence) is neither
  /// free nor busy: it is skipped, and named. Replies {1, unreadable, {index, fence, ...}} or
  /// {0, unreadable, {index, value, fence, ...}} for each busy one; unreadable is {index,
  /// 1 (its key) or 2 (its fence key), why, ...}. Redis does not undo what a script did before
  /// an error, so everything is read and checked before anything is written. A fence follows
  /// `LeaseFence`: the counter plus one, or the floor (the taker's clock) when that is more.
  static let acquireScript = readableFunctions + "\n" + """
    local count = tonumber(ARGV[1])
    local free, busy, unreadable, last = {}, {}, {}, {}
    for i = 1, #KEYS / 2 do
      local fence, why = counter(KEYS[2 * i])
      local which = 2
      if fence then
        why = readable(KEYS[2 * i - 1], \(LeaseRecordFile.longestRecord))
        which = 1
      end
      if why then
        for _, item in ipairs({i, which, why}) do unreadable[#unreadable + 1] = item end
      else
        local current = redis.call('GET', KEYS[2 * i - 1])
        if current then
          for _, item in ipairs({i, current, redis.call('GET', KEYS[2 * i]) or false}) do busy[#busy + 1] = item end
        elseif #free < count then
          free[#free + 1] = i
          last[i] = fence
        end
      end
    end
    if #free < count then return {0, unreadable, busy} end
    local out = {}
    for _, i in ipairs(free) do
      local fence = redis.call('INCR', KEYS[2 * i])
      if fence < tonumber(ARGV[3]) then
        redis.call('SET', KEYS[2 * i], ARGV[3])
        fence = tonumber(ARGV[3])
      end
      redis.call('SET', KEYS[2 * i - 1], ARGV[3 + i], 'PX', ARGV[2])
      out[#out + 1] = i
      out[#out + 1] = fence
    end
    return {1, unreadable, out}
    """

  /// KEYS: per lease its key and its fence key. ARGV: nothing, or text every value read must
  /// hold (a lease id: the others come back as absent). Per lease: its value, its fence
  /// (false when absent) and the milliseconds its key has left. A key accounts cannot read
  /// (`readableFunctions`) is an error in its place, `UNREADABLE` and why, not a failed script
  /// nor a value of any size: one such key must not keep the others from being read.
  static let readScript = readableFunctions + "\n" + """
    local out = {}
    local function get(key, longest)
      local why = readable(key, longest)
      if why then return redis.error_reply('UNREADABLE ' .. why) end
      return redis.call('GET', key)
    end
    for i = 1, #KEYS / 2 do
      local value = get(KEYS[2 * i - 1], \(LeaseRecordFile.longestRecord))
      if type(value) == 'string' and ARGV[1] and not string.find(value, ARGV[1], 1, true) then value = false end
      out[#out + 1] = value
      out[#out + 1] = get(KEYS[2 * i], \(String(LeaseFence.largest).count))
      out[#out + 1] = redis.call('PTTL', KEYS[2 * i - 1])
    end
    return out
    """

  /// KEYS: lease keys. ARGV: their values. Deletes each that still holds its value.
  static let deleteScript = """
    local out = {}
    for i, key in ipairs(KEYS) do
      if redis.call('GET', key) == ARGV[i] then
        out[i] = redis.call('DEL', key)
      else
        out[i] = 0
      end
    end
    return out
    """

  /// KEYS: lease keys. ARGV: ttl (ms), then their values. Extends each that still holds its
  /// value; for the others, what they hold now (false: nothing).
  static let renewScript = """
    local out = {}
    for i, key in ipairs(KEYS) do
      local current = redis.call('GET', key)
      if current == ARGV[i + 1] then
        redis.call('PEXPIRE', key, ARGV[1])
        out[i] = 1
      else
        out[i] = current or false
      end
    end
    return out
    """

  /// KEYS: lease keys. ARGV: ttl (ms), then per key its old and its new value. All or none:
  /// 1 when every key held its old value and now holds its new one for ttl, else 0.
  static let detachScript = """
    for i, key in ipairs(KEYS) do
      if redis.call('GET', key) ~= ARGV[2 * i] then return 0 end
    end
    for i, key in ipairs(KEYS) do
      redis.call('SET', key, ARGV[2 * i + 1], 'PX', ARGV[1])
    end
    return 1
    """
}
