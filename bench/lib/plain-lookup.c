/* plain-lookup: the least a process can do to read one secret from the Secret Service, for
 * bench/sessions to show the floor under `accounts token` and `secret-tool lookup`.
 *
 * Usage: plain-lookup ATTRIBUTE VALUE [ATTRIBUTE VALUE...]
 *
 * Three calls on the session bus with GDBus and nothing else: OpenSession with the "plain"
 * algorithm (no Diffie-Hellman exchange: libsecret always negotiates
 * dh-ietf1024-sha256-aes128-cbc-pkcs7, a 1024-bit modular exponentiation on each side), then
 * SearchItems, then GetSecrets of the first unlocked item. No proxies (so no GetAll, AddMatch,
 * GetNameOwner), no alias lookup, no lock-state check beyond SearchItems' own split, no
 * watchdog threads. Prints the secret and a newline; exit 1 when nothing unlocked matches. Not
 * a model for production code (no deadline, no prompts); a measuring stick.
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#define SERVICE "org.freedesktop.secrets"
#define PATH "/org/freedesktop/secrets"
#define IFACE "org.freedesktop.Secret.Service"

static GVariant *call(GDBusConnection *bus, const char *method, GVariant *args, const char *type) {
  GError *error = NULL;
  GVariant *reply = g_dbus_connection_call_sync(bus, SERVICE, PATH, IFACE, method, args,
                                                G_VARIANT_TYPE(type), G_DBUS_CALL_FLAGS_NONE,
                                                5000, NULL, &error);
  if (!reply) {
    fprintf(stderr, "plain-lookup: %s: %s\n", method, error->message);
    exit(2);
  }
  return reply;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc % 2 == 0) {
    fprintf(stderr, "usage: plain-lookup ATTRIBUTE VALUE [ATTRIBUTE VALUE...]\n");
    return 2;
  }
  GError *error = NULL;
  GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
  if (!bus) {
    fprintf(stderr, "plain-lookup: %s\n", error->message);
    return 2;
  }

  GVariant *opened = call(bus, "OpenSession", g_variant_new("(sv)", "plain", g_variant_new_string("")), "(vo)");
  const char *session;
  g_variant_get_child(opened, 1, "&o", &session);

  GVariantBuilder attributes;
  g_variant_builder_init(&attributes, G_VARIANT_TYPE("a{ss}"));
  for (int i = 1; i + 1 < argc; i += 2) g_variant_builder_add(&attributes, "{ss}", argv[i], argv[i + 1]);
  GVariant *found = call(bus, "SearchItems", g_variant_new("(a{ss})", &attributes), "(aoao)");
  GVariant *unlocked = g_variant_get_child_value(found, 0);
  if (g_variant_n_children(unlocked) == 0) return 1;
  const char *item;
  g_variant_get_child(unlocked, 0, "&o", &item);

  const char *items[] = {item};
  GVariant *secrets = call(bus, "GetSecrets",
                           g_variant_new("(@aoo)", g_variant_new_objv(items, 1), session), "(a{o(oayays)})");
  GVariant *map = g_variant_get_child_value(secrets, 0);
  if (g_variant_n_children(map) == 0) return 1;
  GVariant *value;
  g_variant_get_child(map, 0, "{&o(o@ay@ays)}", NULL, NULL, NULL, &value, NULL);
  gsize length;
  const char *bytes = g_variant_get_fixed_array(value, &length, 1);
  fwrite(bytes, 1, length, stdout);
  fputc('\n', stdout);
  return 0;
}
