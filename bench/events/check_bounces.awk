# check_bounces.awk - bouncing_ball's log (picard-run --events) against
# the closed form: a ball leaving the floor at speed v lands again 2 v / g
# later, so each member's bounce j+1 is at t_j + 2 after_v_j / g. Prints
# the members, the bounces checked and the largest error. g: -v g=...
BEGIN { FS = ","; if (g == "") g = 9.81 }
NR == 1 { next }
{
	m = $1; t = $4; v = $8
	if (NR > 2 && m == last_m) {
		err = t - (last_t + 2 * last_v / g); if (err < 0) err = -err
		if (err > worst) worst = err
		checked++
	} else members++
	last_m = m; last_t = t; last_v = v
}
END { printf "%d members, %d bounces checked against the last one's, largest error %.3g\n", members, checked, worst }
