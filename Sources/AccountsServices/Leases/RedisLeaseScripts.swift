/// The Lua scripts of the Redis lease store. Redis runs each atomically: nothing else happens
/// between its reads and its writes, which is what keeps two holders off one account.
extension RedisLeaseStore {
  /// KEYS: per candidate its key and its fence key. ARGV: count, ttl (ms), the fences' floor,
  /// per candidate its value. Takes the first `count` free candidates, or none: {1, index,
  /// fence, ...} or
  /// {0, index, value, fence, ...} for each busy one, or {-1, index} when the fence key of a
  /// candidate it would take holds no counter. Redis does not undo what a script did before an
  /// error, so every fence is checked before anything is written: an INCR failing half way
  /// left the accounts before it held by nobody. A fence is the counter plus one, or the floor
  /// (the taker's clock in milliseconds since 1970) when that is more: a counter Redis lost
  /// (a restart without persistence, FLUSHALL, an eviction) or gave back older (a snapshot)
  /// starts again above every fence handed out before, never at 1.
  static let acquireScript = """
    local count = tonumber(ARGV[1])
    local free, busy = {}, {}
    for i = 1, #KEYS / 2 do
      local current = redis.call('GET', KEYS[2 * i - 1])
      if current then
        busy[#busy + 1] = i
        busy[#busy + 1] = current
        busy[#busy + 1] = redis.call('GET', KEYS[2 * i]) or false
      elseif #free < count then
        free[#free + 1] = i
      end
    end
    if #free < count then
      table.insert(busy, 1, 0)
      return busy
    end
    for _, i in ipairs(free) do
      local fence = redis.call('GET', KEYS[2 * i])
      if fence and not ((fence == '0' or string.match(fence, '^[1-9]%d*$')) and #fence < 19) then
        return {-1, i}
      end
    end
    local out = {1}
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
    return out
    """

  /// KEYS: per lease its key and its fence key. Per lease: its value, its fence (false when
  /// absent) and the milliseconds its key has left. A key of another type than a string (a
  /// program other than accounts wrote it) is an error in its place, not a failed script:
  /// one such key must not keep the others from being read.
  static let readScript = """
    local out = {}
    local function get(key)
      local value = redis.pcall('GET', key)
      if type(value) == 'table' and value.err then return redis.error_reply('WRONGTYPE') end
      return value
    end
    for i = 1, #KEYS / 2 do
      out[#out + 1] = get(KEYS[2 * i - 1])
      out[#out + 1] = get(KEYS[2 * i])
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
