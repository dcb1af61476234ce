<?php
/*
 * Must-use plugin for wpqueue's end-to-end tests (e2e/hostile_test.go): it
 * makes WordPress answer the way badly configured hosts and plugins do.
 *
 * It does nothing unless the request's User-Agent carries a token
 * "wpq-hostile=MODE[,MODE...]" (the tests set it with site.user_agent), so
 * the tests' own REST calls and every other test see a stock site. Every
 * request carrying the token is appended to wp-content/wpq-requests.log as
 * "METHOD ROUTE" (the rest_route, or the path), so a test can count writes.
 *
 * Modes:
 *   strip-auth        the server drops the Authorization header (Apache with
 *                     PHP as CGI/FastCGI): WordPress never sees the credentials
 *   no-app-passwords  application passwords disabled (a plugin or the host)
 *   rest-anon-401     a security plugin refuses the REST API to anonymous
 *   rest-anon-403       requests, with 401 or 403 and a JSON code
 *   bom               a UTF-8 byte-order mark before every answer
 *   notice            a PHP notice printed before every answer
 *   notice-write      ... before the answers of writes (POST) only
 *   redirect-write    writes (POST) answered 301 to https:// on the same host
 *   redirect-write-host  writes answered 302 to the same URL on host localhost
 *   redirect-host     every request answered 301 to host localhost (a
 *                     "canonical host" rule), unless it already went there
 *   redirect-read     reads (GET) answered 302 to /index.php?<same query>
 *                     (same host), unless they already went there
 *   publish-now       a plugin publishes a post at once when it is scheduled
 *   shift-date        a plugin moves a scheduled post's date by one hour
 *   ignore-write      an update answered 200 with the unchanged post
 *   no-link           the home page sends no Link rel="https://api.w.org/"
 *   waf-write         writes (POST) answered 403 with a Cloudflare-style HTML
 *                     block page (cf-ray header), before WordPress sees them
 *
 * Output before the body is buffered (ob_start), as with the
 * output_buffering = 4096 of most PHP hosts, so headers and status codes
 * still go out (php -S runs with output_buffering 0).
 */

function wpq_hostile_modes() {
	static $modes = null;
	if ($modes === null) {
		$modes = array();
		$ua = isset($_SERVER['HTTP_USER_AGENT']) ? (string) $_SERVER['HTTP_USER_AGENT'] : '';
		if (preg_match('/\bwpq-hostile=([a-z0-9,_-]*)/', $ua, $m)) {
			$modes = array_fill_keys(array_filter(explode(',', $m[1])), true);
			$modes['*'] = true;
		}
	}
	return $modes;
}

function wpq_hostile($mode) {
	$modes = wpq_hostile_modes();
	return isset($modes[$mode]);
}

function wpq_hostile_route() {
	if (isset($_GET['rest_route'])) {
		return (string) $_GET['rest_route'];
	}
	return (string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
}

function wpq_hostile_redirect($status, $location) {
	status_header($status);
	header('Location: ' . $location);
	header('Content-Type: text/html; charset=UTF-8');
	echo "<html><body>Moved</body></html>\n";
	exit;
}

if (wpq_hostile('*')) {
	$wpq_method = isset($_SERVER['REQUEST_METHOD']) ? $_SERVER['REQUEST_METHOD'] : 'GET';
	file_put_contents(WP_CONTENT_DIR . '/wpq-requests.log',
		$wpq_method . ' ' . wpq_hostile_route() . ' ' . $_SERVER['HTTP_HOST'] . parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) . "\n",
		FILE_APPEND | LOCK_EX);
	ob_start();

	$wpq_host = (string) $_SERVER['HTTP_HOST'];
	$wpq_port = (string) parse_url('http://' . $wpq_host, PHP_URL_PORT);
	if (wpq_hostile('redirect-host') && strpos($wpq_host, 'localhost') !== 0) {
		wpq_hostile_redirect(301, 'http://localhost:' . $wpq_port . $_SERVER['REQUEST_URI']);
	}
	if ($wpq_method === 'POST' && wpq_hostile('redirect-write')) {
		wpq_hostile_redirect(301, 'https://' . $wpq_host . $_SERVER['REQUEST_URI']);
	}
	if ($wpq_method === 'POST' && wpq_hostile('redirect-write-host')) {
		wpq_hostile_redirect(302, 'http://localhost:' . $wpq_port . $_SERVER['REQUEST_URI']);
	}
	if ($wpq_method === 'POST' && wpq_hostile('waf-write')) {
		status_header(403);
		header('CF-RAY: 8c1f2a3b4c5d6e7f-FRA');
		header('Content-Type: text/html; charset=UTF-8');
		echo "<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body>Sorry, you have been blocked</body></html>\n";
		exit;
	}
	if ($wpq_method === 'GET' && wpq_hostile('redirect-read')
		&& parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) !== '/index.php') {
		wpq_hostile_redirect(302, '/index.php?' . (string) $_SERVER['QUERY_STRING']);
	}

	if (wpq_hostile('strip-auth')) {
		unset($_SERVER['HTTP_AUTHORIZATION'], $_SERVER['REDIRECT_HTTP_AUTHORIZATION'],
			$_SERVER['PHP_AUTH_USER'], $_SERVER['PHP_AUTH_PW']);
	}
	if (wpq_hostile('no-app-passwords')) {
		add_filter('wp_is_application_passwords_available', '__return_false');
	}
	foreach (array('rest-anon-401' => 401, 'rest-anon-403' => 403) as $wpq_mode => $wpq_status) {
		if (!wpq_hostile($wpq_mode)) {
			continue;
		}
		// As the "Disable REST API" plugin does it.
		add_filter('rest_authentication_errors', function ($result) use ($wpq_status) {
			if (!empty($result) || is_user_logged_in()) {
				return $result;
			}
			return new WP_Error('rest_cannot_access', 'DRA: Only authenticated users can access the REST API.',
				array('status' => $wpq_status));
		}, 20);
	}

	if (wpq_hostile('bom')) {
		echo "\xEF\xBB\xBF";
	}
	if (wpq_hostile('notice') || ($wpq_method === 'POST' && wpq_hostile('notice-write'))) {
		echo "<br />\n<b>Notice</b>:  Undefined index: wpq_setting in <b>/var/www/html/wp-content/plugins/chatty/chatty.php</b> on line <b>42</b><br />\n";
	}

	add_filter('wp_insert_post_data', function ($data) {
		if ($data['post_status'] !== 'future') {
			return $data;
		}
		if (wpq_hostile('publish-now')) {
			$data['post_status'] = 'publish';
		}
		if (wpq_hostile('shift-date')) {
			$data['post_date_gmt'] = gmdate('Y-m-d H:i:s', strtotime($data['post_date_gmt'] . ' UTC') + 3600);
			$data['post_date'] = get_date_from_gmt($data['post_date_gmt']);
		}
		return $data;
	}, 99);

	if (wpq_hostile('ignore-write')) {
		// Answer an update with the post as it is, as if the POST had become a GET.
		add_filter('rest_pre_dispatch', function ($result, $server, $request) {
			if ($request->get_method() !== 'POST' || !preg_match('#^/wp/v2/posts/(\d+)$#', $request->get_route(), $m)) {
				return $result;
			}
			$post = get_post((int) $m[1]);
			if (!$post) {
				return $result;
			}
			$request->set_param('context', 'edit');
			$controller = new WP_REST_Posts_Controller('post');
			return $controller->prepare_item_for_response($post, $request);
		}, 10, 3);
	}

	if (wpq_hostile('no-link')) {
		add_action('init', function () {
			remove_action('template_redirect', 'rest_output_link_header', 11);
		});
	}
	unset($wpq_method, $wpq_host, $wpq_port, $wpq_mode, $wpq_status);
}
