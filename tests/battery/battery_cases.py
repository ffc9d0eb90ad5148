"""The reliability battery's map, case id -> tests: every case of reliability.md section 3.

``CASES`` lists, per case id, the tests that cover it (``path::function[param]``,
relative to the repository). Section A's fixture-per-hazard tests are added from the
fixtures themselves (each ``tests/fixtures/yaml-hazards/NAME.json`` names its case). A reference that
starts with ``n/a:`` explains why part of a case cannot apply. ``test_battery_map.py``
checks that every case has a test, every reference exists, and every battery test and
fixture is listed.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
YAML_HAZARDS = HERE.parent / "fixtures" / "yaml-hazards"   # section A: one payload + NAME.json per hazard

B = "tests/battery/"
CLI = "tests/commands/test_cli.py::"
BUILD = "tests/commands/test_build.py::"
UNIT = "tests/config/test_config.py::"
FAULTS = "tests/sources/test_fetch_faults.py::"
PARSE = "tests/sources/test_arxiv_parse.py::"
HTTP = "tests/sources/test_http.py::"
FCLI = "tests/sources/test_fetch_cli.py::"
SERVE = "tests/serve/test_serve.py::"
HAZ = FAULTS + "test_hazard_leaves_the_cache_byte_identical"
PHAZ = PARSE + "test_hazard_refused_by_parse_page"
Y = B + "test_config_hazards.py::"
O = B + "test_output_hazards.py::"
K = B + "test_output_kill.py::"
S = B + "test_serve_hazards.py::"
P = B + "test_pages_hosting.py::"
F = B + "test_sources_hazards.py::"
PROP = B + "test_config_properties.py::"
XB = B + "test_theme_xss.py::"


def _hazard(name: str) -> list[str]:
    return [f"{HAZ}[{name}]", f"{PHAZ}[{name}]"]


CASES: dict[str, list[str]] = {
    # ---------------------------------------------------------------- A: site.yaml and author YAML
    "A1": [CLI + "test_yaml_error_points_where_the_quote_opened",
           CLI + "test_bad_configuration_one_clear_report[yaml-unclosed-flow]"],
    "A2": [CLI + "test_bad_configuration_one_clear_report[yaml-tab]"],
    "A3": [CLI + "test_bad_configuration_one_clear_report[unknown-key]",
           CLI + "test_bad_configuration_one_clear_report[unknown-nested-key]", UNIT + "test_unknown_key_did_you_mean"],
    "A4": [CLI + "test_bad_configuration_one_clear_report[wrong-type-name]",
           CLI + "test_bad_configuration_one_clear_report[wrong-type-year]", UNIT + "test_wrong_type",
           UNIT + "test_yaml_booleans_are_not_text", PROP + "test_random_yaml_values_in_an_author_file"],
    "A5": [CLI + "test_bad_configuration_one_clear_report[arxiv-id-read-as-number]",
           CLI + "test_lone_arxiv_id_read_as_number_gets_quote_hint"],
    "A6": [],
    "A7": [CLI + "test_bad_configuration_one_clear_report[duplicate-key]", UNIT + "test_duplicate_key"],
    "A8": [CLI + "test_bad_configuration_one_clear_report[two-authors-one-slug]", UNIT + "test_two_authors_one_slug"],
    "A9": [CLI + "test_unsafe_slug_is_refused", CLI + "test_slug_with_trailing_newline_is_refused",
           CLI + "test_new_author_refuses_unsafe_slug", Y + "test_symlinked_input_outside_the_site_is_not_read",
           Y + "test_symlinked_author_file_inside_the_site_is_fine",
           "n/a: '../', an absolute path or NUL cannot be part of a POSIX file name (the slug is the file "
           "name); new-author --slug '../evil' is refused by test_new_author_refuses_unsafe_slug"],
    "A10": [CLI + "test_bad_configuration_one_clear_report[empty-author-file]"],
    "A11": [],
    "A12": [],
    "A13": [CLI + "test_bad_configuration_one_clear_report[yaml-alias]"],
    "A14": [PROP + "test_random_yaml_values_in_an_author_file"],
    "A15": [],
    "A16": [BUILD + "test_unsafe_urls_are_refused", BUILD + "test_hostile_text_is_shown_literally",
            BUILD + "test_hostile_text_is_escaped_everywhere", PROP + "test_hostile_author_file"],
    "A17": [CLI + "test_bad_configuration_one_clear_report[site-output-dir-outside]",
            Y + "test_symlinked_input_outside_the_site_is_not_read"],
    "A18": [UNIT + "test_site_fetch_section", FAULTS + "test_impolite_delay_for_arxiv_is_refused_before_any_request"],
    "A19": [CLI + "test_missing_site_yaml"],
    # ---------------------------------------------------------------- B: feed content
    "B1": _hazard("mismatched-tags.xml"),
    "B2": _hazard("truncated.xml"),
    "B3": _hazard("html-error-page.html") + [f"{HAZ}[html-503.html]", FCLI + "test_failed_fetch_keeps_the_cache_and_exits_3"],
    "B4": _hazard("empty-body.bin") + _hazard("whitespace-body.txt") + _hazard("xml-declaration-only.xml"),
    "B5": _hazard("rate-exceeded.txt") + [FAULTS + "test_transient_fault_then_success_updates_the_cache"],
    "B6": _hazard("billion-laughs.xml") + [FCLI + "test_entity_bombs_are_refused_under_a_memory_limit[billion-laughs.xml]"],
    "B7": _hazard("quadratic-blowup.xml") + [PARSE + "test_utf16_quadratic_bomb_is_refused_before_parsing",
                                             FCLI + "test_entity_bombs_are_refused_under_a_memory_limit[quadratic-blowup.xml]",
                                             FCLI + "test_the_memory_limit_would_catch_a_regression"],
    "B8": _hazard("external-entity.xml") + _hazard("external-dtd.xml") + _hazard("parameter-entity.xml")
          + [FCLI + "test_entity_bombs_are_refused_under_a_memory_limit[external-entity.xml]"],
    "B9": [FCLI + "test_xss_in_every_field_is_escaped_on_the_page",
           PARSE + "test_xss_payloads_are_kept_as_text_and_links_are_never_copied",
           FAULTS + "test_xss_payloads_are_stored_as_text", XB + "test_xss_payloads_run_no_script_in_chromium",
           P + "test_f5_hostile_text_is_shown_as_text"],
    "B10": [F + "test_b10_b11_html_typed_fields_and_feed_links_never_become_markup",
            PARSE + "test_atom_feed_links_only_if_safe_and_html_reduced_to_text", PARSE + "test_html_to_text_drops_scripts"],
    "B11": [F + "test_b10_b11_html_typed_fields_and_feed_links_never_become_markup",
            PARSE + "test_xss_payloads_are_kept_as_text_and_links_are_never_copied",
            BUILD + "test_links_are_only_http_or_built_from_validated_values"],
    "B12": [F + "test_b12_template_syntax_from_a_feed_is_printed_literally", BUILD + "test_hostile_text_is_shown_literally",
            PROP + "test_hostile_typed_in_record"],
    "B13": ["tests/core/test_latex.py::test_xss_payloads_are_inert", "tests/core/test_latex.py::test_unbalanced_input_falls_back",
            "tests/core/test_latex.py::test_href_link_text_kept_without_link",
            "tests/core/test_latex.py::test_fuzz_output_is_always_inert",
            "tests/render/test_render_content.py::test_math_and_macros_on_the_demo_pages"],
    "B14": [F + "test_b14_absurd_sizes_keep_the_page_under_a_megabyte", PARSE + "test_absurd_sizes_are_capped",
            "tests/core/test_latex.py::test_200kb_input_finishes_and_stays_inert"],
    "B15": [FAULTS + "test_zero_results_for_a_new_author_is_an_empty_cache", FAULTS + "test_shrink_is_refused"],
    "B16": _hazard("empty-page.xml") + [FAULTS + "test_empty_page_then_full_page_is_retried"],
    "B17": [FAULTS + "test_short_page_is_retried_and_a_persistent_one_keeps_the_cache",
            "tests/sources/test_arxiv_paging.py::test_first_fetch_pages_then_nothing_new_costs_one_request_per_author"],
    "B18": [PARSE + "test_duplicate_entries_keep_the_first_and_versions_are_split",
            FAULTS + "test_merge_never_drops_and_never_downgrades",
            "tests/assemble/test_assemble.py::test_merge_keeps_the_latest_version"],
    "B19": [PARSE + "test_missing_title_and_title_zero"],
    "B20": [PARSE + "test_dates_are_utc_and_impossible_dates_are_missing",
            "tests/assemble/test_assemble.py::test_newest_first_uses_dates_within_a_year_and_puts_undated_last"],
    "B21": [PARSE + "test_legacy_layout_details", PARSE + "test_xss_payloads_are_kept_as_text_and_links_are_never_copied",
            "tests/assemble/test_assemble.py::test_subject_index_skips_codes_that_are_not_arxiv_categories",
            UNIT + "test_good_site_loads"],
    "B22": [PARSE + "test_invalid_ids_are_skipped_with_a_warning"],
    "B23": _hazard("error-entry-400.xml") + _hazard("error-entry-200.xml"),
    "B24": _hazard("atom03.xml") + _hazard("rss20.xml") + _hazard("wrong-root.xml"),
    "B25": _hazard("control-char.xml") + [PARSE + "test_text_cleaning", Y + "test_yaml_hazard[A3-a03-terminal-escape-in-key]"],
    "B26": _hazard("invalid-utf8.xml") + _hazard("declared-latin1.xml"),
    "B27": [F + "test_b27_unicode_names_and_text", F + "test_b27_nfd_coauthor_links_to_the_nfc_profile",
            F + "test_b27_rtl_names_are_isolated", PARSE + "test_text_cleaning"],
    # ---------------------------------------------------------------- C: network
    "C1": [HTTP + "test_accepted_but_never_answered_fails_within_the_deadline", FAULTS + "test_timeout_keeps_the_cache"],
    "C2": [HTTP + "test_connection_refused_is_retried_then_fails", F + "test_c12_no_network_build_from_cache_warns_and_strict_fails"],
    "C3": [HTTP + "test_cut_body_is_retried_then_succeeds"],
    "C4": [HTTP + "test_throttling_and_server_errors_are_retried[500]", HTTP + "test_throttling_and_server_errors_are_retried[502]",
           HTTP + "test_throttling_and_server_errors_are_retried[504]", HTTP + "test_persistent_500_fails_after_the_retries",
           f"{HAZ}[html-503.html]"],
    "C5": [HTTP + "test_503_retry_after_seconds_is_honoured", HTTP + "test_503_retry_after_http_date_is_honoured",
           HTTP + "test_retry_after_seconds_and_http_date", FAULTS + "test_503_with_retry_after_then_success"],
    "C6": [HTTP + "test_429_with_retry_after_above_the_cap_gives_up_at_once",
           FAULTS + "test_429_beyond_the_cap_keeps_the_cache_and_says_why",
           FCLI + "test_failed_fetch_keeps_the_cache_and_exits_3", "tests/commands/test_workflows.py::test_publish_workflow"],
    "C7": [HTTP + "test_throttling_and_server_errors_are_retried[406]"],
    "C8": [HTTP + "test_slow_drip_is_cut_by_the_overall_deadline", HTTP + "test_dripped_headers_are_cut_by_the_overall_deadline",
           FAULTS + "test_slow_drip_keeps_the_cache"],
    "C9": [HTTP + "test_body_size_cap_declared_and_streamed"],
    "C10": [HTTP + "test_redirects_stay_on_the_same_host", HTTP + "test_same_host_redirect_followed_other_host_refused",
            PARSE + "test_endpoint_from_environment_or_site_yaml"],
    "C11": ["tests/sources/test_arxiv_paging.py::test_requests_are_never_closer_than_the_delay",
            HTTP + "test_user_agent_and_one_connection", HTTP + "test_arxiv_host_needs_three_seconds_other_hosts_do_not"],
    "C12": [F + "test_c12_no_network_build_from_cache_warns_and_strict_fails", BUILD + "test_build_never_touches_the_network",
            BUILD + "test_build_succeeds_in_a_namespace_with_no_network"],
    "C13": [F + "test_c13_corrupt_cache_file_at_build_time", FAULTS + "test_corrupt_cache_is_a_first_fetch",
            "tests/sources/test_store.py::"
            "test_a_record_that_cannot_be_one_is_left_out_with_a_warning_and_the_rest_builds"],
    # ---------------------------------------------------------------- D: filesystem, build and process
    "D1": [O + "test_d1_output_is_a_regular_file", O + "test_d1_output_parent_is_a_regular_file",
           O + "test_d1_write_call_refused_half_way", FAULTS + "test_unwritable_cache_is_a_clear_error"],
    "D2": [O + "test_d2_file_size_limit_during_write", O + "test_d2_dev_full_during_write",
           O + "test_d2_disk_full_in_a_render_process", O + "test_d2_file_size_limit_during_a_cache_write",
           O + "test_d2_dev_full_during_a_cache_write"],
    "D3": ["tests/write/test_kill.py::test_sigkill_during_build_never_damages_output",
           K + "test_d3_sigkill_during_builds_of_a_100_author_site",
           K + "test_d3_sigkill_during_fetch_leaves_every_cache_file_old_or_new"],
    "D4": [K + "test_d4_signal_during_build[SIGINT]", K + "test_d4_signal_during_build[SIGTERM]",
           K + "test_d4_sigterm_during_fetch"],
    "D5": [O + "test_d5_build_while_another_holds_the_lock_exits_5", O + "test_d5_three_builds_started_together",
           O + "test_d5_fetch_while_another_fetch_runs_exits_5", CLI + "test_concurrent_build_is_refused"],
    "D6": [CLI + "test_render_failure_leaves_output_unchanged", CLI + "test_template_syntax_error_names_file_and_line"],
    "D7": [O + "test_d7_output_path_that_must_never_be_replaced", CLI + "test_output_option_never_replaces_the_site_itself",
           CLI + "test_foreign_output_folder_is_not_replaced", CLI + "test_a_users_own_output_old_folder_is_not_deleted",
           CLI + "test_clean_refuses_a_foreign_folder"],
    "D8": [O + "test_d8_files_0644_and_folders_0755_whatever_the_umask", P + "test_f4_size_links_and_modes"],
    "D9": [O + "test_d9_symlinks_planted_in_output_are_not_followed", O + "test_d9_symlinks_in_static_folders_are_not_copied",
           O + "test_d9_symlinked_template_outside_the_site_is_not_read",
           O + "test_d9_planted_staging_and_old_links_are_removed_not_followed", O + "test_d9_output_that_is_a_symlink_is_refused"],
    "D10": [BUILD + "test_two_builds_are_byte_identical", O + "test_d10_rebuild_is_byte_identical_across_processes"],
    # ---------------------------------------------------------------- E: preview server
    "E1": [SERVE + "test_traversal_dotfiles_and_bad_paths_get_400_or_404"],
    "E2": [SERVE + "test_symlink_out_of_the_build_is_not_followed"],
    "E3": [SERVE + "test_traversal_dotfiles_and_bad_paths_get_400_or_404"],
    "E4": [SERVE + "test_traversal_dotfiles_and_bad_paths_get_400_or_404"],
    "E5": [SERVE + "test_traversal_dotfiles_and_bad_paths_get_400_or_404",
           S + "test_e5_huge_header_gets_431_and_the_server_keeps_serving",
           S + "test_e5_long_path_segments_are_answered_without_a_traceback"],
    "E6": [SERVE + "test_200_concurrent_requests_and_idle_connections",
           S + "test_e6_200_idle_connections_do_not_block_a_normal_request"],
    "E7": [S + "test_e7_clients_that_vanish_mid_download_and_mid_long_poll"],
    "E8": [S + "test_e8_default_bind_is_loopback_only", S + "test_e8_all_interfaces_only_when_asked_with_a_notice",
           S + "test_e8_busy_port_names_the_port_and_the_option", S + "test_e8_serve_outside_a_site_is_one_line"],
    "E9": [SERVE + "test_traversal_dotfiles_and_bad_paths_get_400_or_404"],
    "E10": [S + "test_e10_requests_during_rebuilds_get_complete_pages",
            SERVE + "test_edit_reloads_open_page_and_broken_yaml_shows_error"],
    "E11": [SERVE + "test_edit_reloads_open_page_and_broken_yaml_shows_error",
            S + "test_e11_broken_at_start_says_so_and_serves_the_error_page"],
    "E12": [SERVE + "test_traversal_dotfiles_and_bad_paths_get_400_or_404"],
    # ---------------------------------------------------------------- F: output / GitHub Pages
    "F1": [P + "test_f1_every_internal_link_resolves_under_the_base", BUILD + "test_crawl_served_site_finds_no_broken_link",
           BUILD + "test_internal_links_are_absolute_paths_under_the_base"],
    "F2": [P + "test_f2_404_page_uses_base_prefixed_absolute_urls", BUILD + "test_internal_links_are_absolute_paths_under_the_base"],
    "F3": [P + "test_f3_nojekyll_and_no_underscore_names", BUILD + "test_nojekyll_robots_and_sitemap"],
    "F4": [P + "test_f4_size_links_and_modes", P + "test_f_every_file_is_readable_by_others"],
    "F5": [P + "test_f5_every_page_parses_and_is_inert", P + "test_f5_hostile_text_is_shown_as_text",
           PROP + "test_hostile_author_file", PROP + "test_hostile_typed_in_record",
           BUILD + "test_hostile_text_is_escaped_everywhere",
           "tests/site/test_theme_quality.py::test_every_page_passes_the_nu_html_checker"],
    "F6": ["tests/commands/test_workflows.py::test_publish_workflow",
           "n/a (partly): the project publishes from the cache when a fetch fails (the fetch step has "
           "continue-on-error and the cache is byte-identical, so the pages do not regress); a job summary "
           "listing stale authors is not implemented"],
}


def fixture_cases() -> dict[str, list[str]]:
    """Section A's fixtures, by case id, as test references."""
    out: dict[str, list[str]] = {}
    for p in sorted(YAML_HAZARDS.glob("*.json")):
        case = json.loads(p.read_text("utf-8"))["case"]
        out.setdefault(case, []).append(f"{Y}test_yaml_hazard[{case}-{p.stem}]")
    return out


def case_map() -> dict[str, list[str]]:
    merged = {k: list(v) for k, v in CASES.items()}
    for case, refs in fixture_cases().items():
        merged.setdefault(case, []).extend(refs)
    return merged
